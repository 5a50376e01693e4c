"""Someone named who does something ("Tom smokes") keeps that fact when the user withdraws
the same of themself ("I don't smoke anymore"): the verb after the name is no verb of
being, yet the fact is still that one's, not the user's."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.owners import owner_of


@pytest.mark.parametrize(("fact", "withdrawal", "left"), [
    ("Tom smokes.", "I don't smoke anymore.", ["Tom smokes", "User doesn't smoke anymore"]),
    ("Tom plays golf.", "I don't play golf anymore.",
     ["Tom plays golf", "User doesn't play golf anymore"]),
    ("Ana drinks coffee.", "I quit coffee.", ["Ana drinks coffee", "User: I quit coffee"]),
    ("Tom Smith runs marathons.", "I don't run marathons anymore.",
     ["Tom Smith runs marathons", "User doesn't run marathons anymore"]),
    # A company's fact is none of the user's job either.
    ("Globex pays well.", "I no longer work at Globex.",
     ["Globex pays well", "User: I no longer work at Globex"]),
    # How often or when they did it keeps it theirs.
    ("Tom rarely smokes.", "I don't smoke anymore.",
     ["Tom rarely smokes", "User doesn't smoke anymore"]),
    ("Tom often plays golf.", "I don't play golf anymore.",
     ["Tom often plays golf", "User doesn't play golf anymore"]),
    ("Tom played golf.", "I don't play golf anymore.",
     ["Tom played golf", "User doesn't play golf anymore"]),
    ("Tom Smith smoked for years.", "I don't smoke anymore.",
     ["Tom Smith smoked for years", "User doesn't smoke anymore"]),
    # Where or when they do it names no one else whose the fact may be.
    ("Tom smokes in Berlin.", "I don't smoke anymore.",
     ["Tom smokes in Berlin", "User doesn't smoke anymore"]),
    ("Ana rarely drinks on Fridays.", "I don't drink anymore.",
     ["Ana rarely drinks on Fridays", "User doesn't drink anymore"]),
    # A word of when before the name leaves the fact theirs.
    ("Today Tom works from home.", "I don't work from home anymore.",
     ["Today Tom works from home", "User doesn't work from home anymore"]),
    ("Sometimes Ana drinks.", "I don't drink anymore.",
     ["Sometimes Ana drinks", "User doesn't drink anymore"]),
    # Another named beside a doer known by a first name is no doer of the user's.
    ("Tom smokes with Ana.", "I don't smoke anymore.",
     ["Tom smokes with Ana", "User doesn't smoke anymore"]),
])
def test_the_users_withdrawal_leaves_a_named_ones_doing(
        fact: str, withdrawal: str, left: list[str]) -> None:
    assert core_after(fact, withdrawal) == sorted(left)


def test_their_own_withdrawal_still_retires_it() -> None:
    assert core_after("Tom smokes.", "Tom doesn't smoke anymore.") == []


@pytest.mark.parametrize(("text", "name"), [
    ("Tom smokes", "tom"), ("Ana drinks coffee", "ana"), ("Tom Smith plays golf", "tom smith"),
    ("Tom smokes with Ana", "tom"),
])
def test_a_name_before_a_verb_in_the_third_person_owns_the_fact(text: str, name: str) -> None:
    owner = owner_of(text)
    assert owner is not None and not owner.user and owner.name == name


@pytest.mark.parametrize("text", ["Tom and Ana smoke", "The dog barks"])
def test_no_name_before_the_verb_stays_unclear(text: str) -> None:
    assert owner_of(text) is None


def test_the_users_withdrawal_retires_a_fact_of_theirs_opening_with_a_capital() -> None:
    # "Smoking hurts User's lungs" is the user's, though it opens as "Tom smokes" does.
    assert core_after("Smoking hurts my lungs.", "I don't smoke anymore.") == []


@pytest.mark.parametrize("text", [
    "Smoking hurts User's lungs", "Milk upsets User's stomach", "Monday mornings stress Tom out",
])
def test_a_capital_before_such_a_word_owns_no_fact_that_speaks_of_another(text: str) -> None:
    assert owner_of(text) is None


@pytest.mark.parametrize("fact", ["Recently started smoking.", "Just started smoking."])
def test_a_word_of_when_opening_the_users_doing_is_no_one_else(fact: str) -> None:
    # The user's own doing, said without "I": their withdrawal retires it.
    assert core_after(fact, "I don't smoke anymore.") == []


@pytest.mark.parametrize(("text", "name"), [
    ("Yesterday Ana called", "ana"), ("Recently moved to Lisbon", None),
    ("Tom recently smoked", "tom"), ("Today Tom works from home", "tom"),
])
def test_a_word_of_when_is_no_part_of_a_name(text: str, name: str | None) -> None:
    owner = owner_of(text)
    assert (owner and owner.name) == name

