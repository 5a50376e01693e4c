"""A marital state ends the one held before it, said with a change cue or plainly ("I'm
divorced" after "I'm married to Ana"): core never says both of one person. The user's
spouse divorced now is the user's divorce, and a user with no spouse has no wife named."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.lasting_states import marriage_changed


@pytest.mark.parametrize(("held", "said", "now"), [
    ("I'm married to Ana.", "My wife is divorced now.", ["User's wife is divorced"]),
    ("I'm married to Ana.", "I'm divorced now.", ["User is divorced"]),
    ("I'm married to Ana.", "I'm divorced.", ["User is divorced"]),
    ("I'm married.", "I'm divorced now.", ["User is divorced"]),
    ("My wife is Ana.", "I'm single now.", ["User is single"]),
    # separated, the user still has the wife named
    ("My wife is Ana.", "I'm separated.", ["User is separated", "User's wife is Ana"]),
    ("I'm divorced.", "I'm married to Eva now.", ["User is married to Eva"]),
    # said plainly, the wife's divorce is one before the marriage, which stays
    ("I'm married to Ana.", "My wife is divorced.",
     ["User is married to Ana", "User's wife is divorced"]),
    ("I'm married to Ana.", "My brother is divorced.",
     ["User is married to Ana", "User's brother is divorced"]),
    # one spouse at a time, and none beside a divorce; a name said in full is the same one
    ("My wife is Ana.", "I'm married to Eva now.", ["User is married to Eva"]),
    ("I'm married to Ana.", "My wife is Eva.", ["User's wife is Eva"]),
    ("I'm divorced.", "My wife is Eva.", ["User's wife is Eva"]),
    ("I'm married to Ana.", "My wife is Ana Silva.",
     ["User is married to Ana", "User's wife is Ana Silva"]),
])
def test_one_marital_state_at_a_time(held: str, said: str, now: list[str]) -> None:
    assert core_after(held, said) == now


def test_only_a_marital_state_of_the_same_person_ends_one() -> None:
    assert marriage_changed("User's husband is separated", "User is married to Tom", True)
    assert not marriage_changed("User's husband is separated", "User is married to Tom")
    assert marriage_changed("User's brother is married", "User's brother is engaged")
    assert not marriage_changed("User's wife is pregnant", "User is married to Ana")
    assert not marriage_changed("User's wife is divorced", "User's brother is married")
    assert not marriage_changed("User is married to Ana", "User is married to Ana")
    # a married user still has a wife; only having none ends her name
    assert not marriage_changed("User is married", "User's wife is Ana")


@pytest.mark.parametrize("said", ["I'm married.", "I'm married now."])
def test_a_marriage_told_with_less_keeps_the_partner_named(said: str) -> None:
    # the same state with no one named is no other state: dropped, Ana's name is lost
    assert "User is married to Ana" in core_after("I'm married to Ana.", said)
    assert not marriage_changed("User is married", "User is married to Ana")
    assert marriage_changed("User is married to Eva", "User is married to Ana")


@pytest.mark.parametrize("said", [
    "We're divorced.", "My wife and I are divorced.", "Ana and I are divorced now."])
def test_a_couple_the_user_is_in_divorced_is_the_users_divorce(said: str) -> None:
    # kept, core would name a wife beside the divorce that ended the marriage
    for held in ("My wife is Ana.", "I'm married to Ana."):
        now = core_after(held, said)
        assert len(now) == 1 and "divorced" in now[0], (held, now)


def test_a_couple_without_the_user_is_not_the_users() -> None:
    assert not marriage_changed("Tom and Ana are divorced", "User is married to Eva", True)
    assert not marriage_changed("We are married", "User is married to Ana")


def test_the_spouse_named_an_ex_ends_the_marriage() -> None:
    # kept, core would say the user is married to the one it calls an ex
    assert core_after("I'm married to Ana.", "My ex-wife is Ana.") == ["User's ex-wife is Ana"]
    assert core_after("My wife is Ana.", "My ex-wife is Ana.") == ["User's ex-wife is Ana"]
    assert sorted(core_after("I'm married to Eva.", "My ex-wife is Ana.")) == [
        "User is married to Eva", "User's ex-wife is Ana"]


@pytest.mark.parametrize("said", [
    "I'm engaged to deliver the migration by Friday.", "We're engaged to ship it by Monday.",
    "I'm married to my job."])
def test_a_state_naming_no_one_leaves_the_spouse_named(said: str) -> None:
    # read as another partner, a deadline or an idiom erased the wife from core
    assert "User's wife is Ana" in core_after("My wife is Ana.", said)
    assert not marriage_changed("User's wife is Ana", "User is engaged to deliver it by Friday")


@pytest.mark.parametrize("said", ["i'm married to eva.", "i'm engaged to sam now."])
def test_a_partner_named_in_lowercase_ends_the_spouse_named(said: str) -> None:
    # typed without capitals, the new partner was read as no one and both stayed in core
    assert "User's wife is Ana" not in core_after("My wife is Ana.", said)
    assert "User's wife is Ana" in core_after("My wife is Ana.", "i'm engaged to ship it.")


@pytest.mark.parametrize("said", [
    "I'm engaged to mark the release as done.",
    "We're engaged to max out the budget.",
    "I'm married to will power, as my wife says.",
])
def test_a_lowercase_name_that_goes_on_as_a_phrase_ends_no_spouse(said: str) -> None:
    # "mark", "max" and "will" are given names too: read as partners, the wife was lost
    assert "User's wife is Ana" in core_after("My wife is Ana.", said)


@pytest.mark.parametrize(("held", "said", "now"), [
    ("I'm married to Ana.", "My ex-wife is Ana Silva.", "User's ex-wife is Ana Silva"),
    ("I'm married to Ana Silva.", "My ex-wife is Ana.", "User's ex-wife is Ana"),
    ("My wife is Ana Silva.", "My ex-wife is Ana.", "User's ex-wife is Ana"),
    ("I'm married to Ana.", "Ana is my ex.", "Ana is User's ex"),
    ("My wife is Ana.", "Ana is my ex-wife.", "Ana is User's ex-wife"),
    ("I'm married to Ana.", "My ex is Ana.", "User's ex is Ana"),
])
def test_the_spouse_called_an_ex_in_any_words_ends_the_marriage(
        held: str, said: str, now: str) -> None:
    # kept, core would say the user is married to the one it calls an ex
    assert core_after(held, said) == [now]
    assert not marriage_changed("User's ex-wife is Ana Costa", "User is married to Ana Silva")


def test_only_the_users_ex_of_the_spouses_name_ends_the_marriage() -> None:
    assert not marriage_changed("Eva is User's ex", "User is married to Ana")
    assert not marriage_changed("Ana is User's brother's ex-wife", "User is married to Ana")
