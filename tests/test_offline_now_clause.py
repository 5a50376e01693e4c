"""A clause saying what holds now after one saying what held before ("I was unemployed
for a year, now I work at Acme") is read on its own, as it would be after a full stop:
the job it names ends the one held, and neither is stored as a garbled quote."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.statements import now_apart


@pytest.mark.parametrize(("said", "now"), [
    ("I was unemployed for a year, now I work at Acme.",
     ["User was unemployed for a year", "User works at Acme"]),
    ("I used to work at Globex, now I work at Acme.",
     ["User works at Acme", "User: I used to work at Globex"]),
    ("I used to work at Globex but now I work at Acme.",
     ["User works at Acme", "User: I used to work at Globex"]),
])
def test_the_job_said_now_ends_the_one_held(said: str, now: list[str]) -> None:
    assert core_after("I work at Globex.", said) == now


def test_only_a_clause_before_now_is_cut_off() -> None:
    assert now_apart("I lived in Paris for years, and now I live in Lisbon.") == [
        "I lived in Paris for years", "Now I live in Lisbon."]
    assert now_apart("My wife, now I think of it, is vegan.") == [
        "My wife, now I think of it, is vegan."]
    assert now_apart("I work at Acme now.") == ["I work at Acme now."]


@pytest.mark.parametrize("said", [
    "My wife Ana, now I think of it, works at Acme.",
    "My brother's boss, now I remember, is vegan.",
])
def test_an_aside_with_now_is_no_clause_of_its_own(said: str) -> None:
    # cut at the aside, whose job or diet it is would be stored apart from it
    assert now_apart(said) == [said]


@pytest.mark.parametrize(("said", "stored"), [
    ("My wife Ana, now I think of it, works at Acme.", "User's wife Ana works at Acme"),
    ("My brother's boss, now I remember, is vegan.", "User's brother's boss is vegan"),
    ("I work at Acme, now I think of it.", "User works at Acme"),
    ("Now I think of it, my wife works at Acme.", "User's wife works at Acme"),
    ("Now I come to think of it, I work at Globex.", "User works at Globex"),
])
def test_an_aside_with_now_is_left_out_of_the_fact(said: str, stored: str) -> None:
    # left in, the fact was a quote of the user ("User: My wife Ana I think of it, ...")
    assert core_after(said) == [stored]
