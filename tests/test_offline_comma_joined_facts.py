""""Ana is my sister, Tom is my brother." joins two facts by a comma as "..., and Tom is my
brother" does by "and": each is stored on its own. Kept as one, "Ana is User's sister, Tom
is User's brother" changed as a whole and named neither alone. A comma before what states
nothing of its own ("Berlin, Germany", "Paris, Rome and Oslo") still joins no statements."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.clauses import clauses_of


@pytest.mark.parametrize("parts", [
    ["Ana is User's sister", "Tom is User's brother"],
    ["Tom is a doctor", "Ana is a nurse"],
    ["User's dog is Rex", "User's cat is Tom"],
    ["User is a teacher", "User lives in Rome"],
    ["User's dog is Rex", "Tom's cat is Felix"],
])
def test_a_comma_before_a_capital_joins_statements(parts: list[str]) -> None:
    assert clauses_of(", ".join(parts)) == parts


@pytest.mark.parametrize("fact", [
    "User lives in Berlin, Germany", "User's favourite cities are Paris, Rome and Oslo",
    "User's sister, Ana, is a nurse", "User's brother lives in Paris, Texas",
    "User is not tired, User is hungry",  # a denial and what holds instead: one statement
    # neither the speaker nor a first name opens the part after: it may lean on the one
    # before for what it says
    "User likes Queen, Blur is okay too", "User's favourite band is Queen, Muse is second",
    "User's PIN is 1234, Locker is 5678", "User's school was Eton, Tom's was Harrow",
])
def test_a_comma_before_what_states_nothing_joins_none(fact: str) -> None:
    assert clauses_of(fact) == [fact]


def test_each_fact_joined_by_a_comma_is_stored() -> None:
    assert core_after("Ana is my sister, Tom is my brother, Sam is my friend.") == [
        "Ana is User's sister", "Sam is User's friend", "Tom is User's brother"]


def test_what_leans_on_the_part_before_is_stored_with_it() -> None:
    assert core_after("I like Queen, Blur is okay too.") == ["User likes Queen, Blur is okay too"]


#: What a comma joins before "he", "she" or "his", as told: each apart when the pronoun may
#: be the subject before it; kept as said when it is neither Tom nor the speaker.
_TOLD_AFTER_A_COMMA = {
    "Ana is my sister, she is a nurse.": ["Ana is User's sister", "Ana is a nurse"],
    "Tom is my brother, his wife is Ana.": ["Tom is User's brother", "Tom's wife is Ana"],
    "My sister is Ana, she lives in Rome.": ["User's sister is Ana",
                                             "User's sister lives in Rome"],
    "Tom is my brother, she is a nurse.": ["Tom is User's brother, she is a nurse"],
    "I live in Rome, she is a nurse.": ["User lives in Rome, she is a nurse"],
}


@pytest.mark.parametrize("said", _TOLD_AFTER_A_COMMA)
def test_a_comma_before_he_or_she_joins_statements(said: str) -> None:
    assert core_after(said) == sorted(_TOLD_AFTER_A_COMMA[said])


#: A part after a comma that only shares the statement before it, as told: in full, as
#: "and" tells it, never cut off as "User's son is".
_SHARED_AFTER_A_COMMA = {
    "I'm allergic to nuts, my son is too.": ["User is allergic to nuts",
                                             "User's son is allergic to nuts"],
    "I like tea, Tom does too.": ["Tom likes tea", "User likes tea"],
    "I like tea, my wife does as well.": ["User likes tea", "User's wife likes tea"],
    "My wife is vegan, I am too.": ["User is vegan", "User's wife is vegan"],
    "I'm a nurse, my husband is too.": ["User is a nurse", "User's husband is a nurse"],
}


@pytest.mark.parametrize("said", _SHARED_AFTER_A_COMMA)
def test_a_share_after_a_comma_is_told_in_full(said: str) -> None:
    assert core_after(said) == sorted(_SHARED_AFTER_A_COMMA[said])


@pytest.mark.parametrize(("said", "core"), [
    ("I'm vegan, my husband is not.", ["User is vegan", "User's husband is not vegan"]),
    ("I'm vegan, Tom is not.", ["Tom is not vegan", "User is vegan"]),
])
def test_a_denial_after_a_comma_is_no_sentence_cut_off(said: str, core: list[str]) -> None:
    assert core_after(said) == core


@pytest.mark.parametrize("said", ["Hi, my name is", "Well, my address is"])
def test_a_statement_cut_off_after_a_greeting_is_still_none(said: str) -> None:
    assert core_after(said) == []


@pytest.mark.parametrize("said", ["I'm vegan, my name is", "I don't smoke, my name is."])
def test_a_statement_cut_off_after_a_comma_is_not_stored(said: str) -> None:
    assert all("name" not in fact for fact in core_after(said))
