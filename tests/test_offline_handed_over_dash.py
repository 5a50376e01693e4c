""""I don't work at Google anymore - my brother does too": a dash joins the user's denial
and the other person's share as a comma does, and "too" after the other's "does" changes
nothing of what it says. Read whole, the retraction ended the user's job and the
brother's share was lost with it."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.handed_over import with_handed_over


@pytest.mark.parametrize("said", [
    "I don't work at Google anymore - my brother does too",
    "I don't work at Google anymore — my brother does.",
    "I don't work at Google anymore, my brother does too.",
    "I no longer work at Google – but my brother still does",
])
def test_the_others_share_outlives_the_users_denial(said: str) -> None:
    assert core_after("I work at Google.", said) == ["User's brother works at Google"]


@pytest.mark.parametrize(("said", "theirs"), [
    ("I no longer work at Google - my wife does now.", "My wife works at Google."),
    ("I don't live in Porto anymore, but my wife still does though.",
     "My wife lives in Porto."),
    ("I'm not on call anymore, Priya is now.", "Priya is on call."),
])
def test_a_word_after_the_others_share_keeps_it_whole(said: str, theirs: str) -> None:
    assert with_handed_over([said])[1:] == [theirs]


def test_the_others_share_with_a_word_after_it_is_stored_in_full() -> None:
    # the word after "does" left it unsplit: "User's wife does" was stored
    assert core_after("I work at Google.", "I no longer work at Google - my wife does now."
                      ) == ["User's wife works at Google"]


def test_a_dash_before_someone_else_on_call_hands_it_over() -> None:
    assert with_handed_over(["I'm not on call anymore - Priya is"]) == [
        "I'm not on call anymore.", "Priya is on call."]


@pytest.mark.parametrize("sentence", [
    "I don't work at Google anymore - he does too",  # a pronoun names no one here
    "I don't smoke - Tom is too",  # "is" repeats no "smoke"
    "I don't work at Google anymore - my brother does too, at Acme",
])
def test_a_dash_with_no_share_to_hand_over_is_left_as_said(sentence: str) -> None:
    assert with_handed_over([sentence]) == [sentence]



#: Said after "I am on call." (or "I work at Google.", "I live in Lisbon."): read as an
#: ellipsis of the denial, Priya was stored as no longer on call and the wife's or the
#: sister's share was dropped as one that could not be told.
_BUT_TOO = {
    "I'm not on call anymore, but Priya is too.": "Priya is on call",
    "I'm not on call anymore but Priya is as well.": "Priya is on call",
    "I no longer work at Google but my wife does too.": "User's wife works at Google",
    "I don't live in Lisbon anymore, but my sister does as well.":
        "User's sister lives in Lisbon",
}


@pytest.mark.parametrize("said", list(_BUT_TOO))
def test_but_before_the_others_share_hands_it_over(said: str) -> None:
    held = {"I'm": "I am on call.", "I no": "I work at Google.", "I don't": "I live in Lisbon."}
    opening = next(words for words in held if said.startswith(words))
    assert core_after(held[opening], said) == [_BUT_TOO[said]]


@pytest.mark.parametrize(("held", "said", "now"), [
    ("I am on call.", "I'm not on call anymore, Priya is, and Sam too.",
     ["Priya is on call", "Sam is on call"]),
    ("I am on call.", "I'm not on call anymore, but Priya is and Sam as well.",
     ["Priya is on call", "Sam is on call"]),
    ("I work at Google.", "I no longer work at Google but my wife does, and my brother too.",
     ["User's brother works at Google", "User's wife works at Google"]),
    # the second one's own "does", "do" or "is" was read into their name or left unread:
    # "User's brother does works at Google", "Sam is not on call anymore, Priya is"
    ("I work at Google.",
     "I no longer work at Google but my wife does, and my brother does too.",
     ["User's brother works at Google", "User's wife works at Google"]),
    ("I work at Google.", "I no longer work at Google but my wife does, and my parents do too.",
     ["User's parents work at Google", "User's wife works at Google"]),
    ("I work at Google.", "I no longer work at Google but my wife does, and so does my brother.",
     ["User's brother works at Google", "User's wife works at Google"]),
    ("I am on call.", "I'm not on call anymore, Priya is, and Sam is too.",
     ["Priya is on call", "Sam is on call"]),
    ("I am on call.", "I'm not on call anymore, Priya is, and so is Sam.",
     ["Priya is on call", "Sam is on call"]),
])
def test_a_second_one_after_the_others_share_has_it_too(held: str, said: str,
                                                        now: list[str]) -> None:
    # held whole, the sentence was stored as said beside the user's fact it denies
    assert core_after(held, said) == now


@pytest.mark.parametrize("said", ["Priya is on call. I'm not anymore, but Sam is.",
                                  "My wife is vegan. I'm not anymore, Sam is."])
def test_a_denial_that_says_not_what_hands_nothing_over(said: str) -> None:
    # its "anymore" was read as what it denies, and "Sam is anymore" was stored
    assert with_handed_over(said.split(". ")[1:]) == said.split(". ")[1:]
    # (what it denies is what the sentence before it said: tests/test_offline_bare_denial.py)
    assert not [fact for fact in core_after("I am on call.", said)
                if "Sam" in fact and "anymore" in fact]


@pytest.mark.parametrize(("held", "said", "now"), [
    ("I am on call.", "I'm not on call anymore, Priya and Sam are.",
     ["Priya and Sam are on call"]),
    ("I work at Google.", "I don't work at Google anymore, but my wife and my brother do.",
     ["User's wife and User's brother work at Google"]),
    ("I work at Google.", "I don't work at Google anymore, but my wife and brother do.",
     ["User's wife and brother work at Google"]),
    ("I am on call.", "I'm not on call anymore, Priya is, and Sam and Li too.",
     ["Priya is on call", "Sam and Li are on call"]),
])
def test_two_who_share_it_keep_it(held: str, said: str, now: list[str]) -> None:
    # read as a plain retraction, the user's fact was retired and theirs was lost with it
    assert core_after(held, said) == now
