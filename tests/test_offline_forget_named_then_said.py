"""The offline policy on "Forget X, I live in Y now": the request, then the speaker's news."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.forget_requests import beside_the_request, each_named_apart


@pytest.mark.parametrize("said", ["Forget the meeting, I live in Lisbon now.",
                                  "Forget Tom; I live in Lisbon now.",
                                  "Please forget my gym, and I live in Lisbon now."])
def test_the_statement_after_a_named_request_is_stored(said: str) -> None:
    core = core_after("I live in Porto.", "My friend Tom is a chef.", said)
    assert "User lives in Lisbon" in core
    assert "User lives in Porto" not in core


def test_what_is_said_of_the_thing_named_still_goes_with_it() -> None:
    assert core_after("I live in Porto.", "My sister lives in Berlin.",
                      "Forget my sister, she moved.") == ["User lives in Porto"]


def test_the_statement_is_read_apart_and_answers() -> None:
    assert each_named_apart(["Forget the meeting, I live in Lisbon now."]) == [
        "Forget the meeting.", "I live in Lisbon now."]
    assert beside_the_request("Forget the meeting, I live in Lisbon now.") == (
        "I live in Lisbon now")
    assert beside_the_request("Forget my sister, she moved.") == ""



@pytest.mark.parametrize(("said", "kept"), [
    # Read as part of what was named, the remark's words matched no fact: nothing went.
    ("Forget my password, please, it's old.", "I live in Porto."),
    ("Forget my password, it's old.", "I live in Porto."),
    ("Forget my password because it leaked.", "I live in Porto."),
    # Read as one more thing named, "tell me my address" retired the address as well.
    ("Forget my password and tell me my address.", "My address is 12 Oak Street."),
    ("Can you forget my password and tell me my address?", "My address is 12 Oak Street."),
    ("Forget my password, and then remind me of my address.", "My address is 12 Oak Street."),
])
def test_only_the_thing_named_goes(said: str, kept: str) -> None:
    fact_kept = core_after(kept)
    assert core_after("My password is hunter2.", kept, said) == fact_kept


def test_a_remark_on_what_goes_is_no_fact_of_its_own() -> None:
    assert each_named_apart(["Forget my sister, she is abroad."]) == ["Forget my sister."]


def test_a_new_value_asked_to_be_remembered_is_not_lost() -> None:
    assert each_named_apart(["Forget my password and remember my PIN 4321."]) == [
        "Forget my password.", "My PIN is 4321."]
    assert "4321" in " ".join(core_after("My password is hunter2.",
                                         "Forget my password and remember my PIN 4321."))


@pytest.mark.parametrize("said", ["Forget my password and remember my PIN 4321.",
                                  "Forget my password and save my PIN as 4321, please."])
def test_a_value_asked_to_be_remembered_replaces_the_one_held(said: str) -> None:
    # quoted as asked, "User's PIN 4321" was stored beside "User's PIN is 1234"
    assert core_after("My PIN is 1234.", "My password is hunter2.", said) == [
        "User's PIN is 4321"]


@pytest.mark.parametrize("said", [
    "Forget my address and text me the new one.",
    "Forget my address and send us a new one!",
])
def test_asking_for_the_new_value_stores_nothing(said: str) -> None:
    # read as a statement of the speaker's, it was stored as "User: Text me the new one"
    assert core_after("My address is 12 Oak Street.", said) == []


@pytest.mark.parametrize(("said", "kept"), [
    # the place or time was read into the thing: "User's appointment at is 3pm"
    ("Forget my dentist and keep my appointment at 3pm.", "Keep User's appointment at 3pm"),
    ("Forget my locker and save my bag in locker 14.", "Save User's bag in locker 14"),
    ("Forget my dentist and remember my date of birth 1990-05-03.",
     "User's date of birth is 1990-05-03"),
])
def test_a_value_after_a_place_or_time_is_no_value_of_the_thing(said: str, kept: str) -> None:
    assert kept in core_after("My dentist is Dr Lee.", "My locker is 12.", said)


@pytest.mark.parametrize(("said", "now"), [
    # quoted as asked, "it's hunter3" was stored of nothing, beside no password
    ("Forget my password and remember it's hunter3.", ["User's password is hunter3"]),
    ("Forget my password and remember that it is hunter3 now.", ["User's password is hunter3"]),
    ("Forget my password and remember it's old.", []),
    # what the new value is for is no part of its kind: read with it, hunter3 was lost
    ("Forget my password and remember it's hunter3 for the VPN.",
     ["User's password is hunter3 for the VPN"]),
    ("Forget my password, it's hunter3 for the VPN now.",
     ["User's password is hunter3 for the VPN"]),
    ("Forget my password, it's Complicated for my team.", []),
])
def test_remembering_what_it_is_now_is_said_of_the_thing_named(said: str,
                                                               now: list[str]) -> None:
    assert core_after("My password is hunter2.", said) == now


@pytest.mark.parametrize(("said", "now"), [
    # the thing ran up to the last word: "User's birthday is May is 3"
    ("Forget my password and remember my birthday is May 3.", ["User's birthday is May 3"]),
    ("Forget my password and remember my PIN is 4321.", ["User's PIN is 4321"]),
])
def test_a_statement_to_remember_is_stored_as_said(said: str, now: list[str]) -> None:
    assert core_after("My password is hunter2.", said) == now


@pytest.mark.parametrize("said", ["Forget my PIN, my new PIN is 4321.",
                                  "Forget my PIN. My new PIN is 4321.",
                                  "Forget my PIN and my new PIN is 4321!"])
def test_the_new_one_of_what_goes_is_stored_as_the_thing(said: str) -> None:
    # kept as "User's new PIN is 4321", it stood apart from the PIN it replaced
    assert sorted(core_after("My PIN is 1234.", "My address is 3 Oak St.", said)) == [
        "User's PIN is 4321", "User's address is 3 Oak St."]


def test_the_new_one_of_another_thing_keeps_its_new() -> None:
    assert each_named_apart(["Forget my PIN, my new address is 9 Elm Road."]) == [
        "Forget my PIN, my new address is 9 Elm Road."]


@pytest.mark.parametrize(("said", "now"), [
    # a courtesy after the new value was stored in it: "User's PIN is 4321, thanks"
    ("Forget my PIN, my new PIN is 4321, thanks.", ["User's PIN is 4321"]),
    ("Forget my PIN, my new PIN is 4321 please.", ["User's PIN is 4321"]),
    ("Forget my PIN, my new PIN is 4321 ty", ["User's PIN is 4321"]),
    # read as the new PIN, the old one that was to go was kept in core with it; the new
    # one stays
    ("Forget my PIN, my new PIN is 4321 and my old one was 1234.", ["User's PIN is 4321"]),
    ("Forget my PIN, my new PIN is 4321, and my old one was 1234.", ["User's PIN is 4321"]),
    ("Forget my PIN, my new PIN is 4321 but my previous one was 1234.", ["User's PIN is 4321"]),
    ("Forget my PIN. My new PIN is 4321, my old one was 1234.", ["User's PIN is 4321"]),
    # with no word between, the old one was kept in the new fact: "User's PIN is 4321
    # User's old one was 1234"
    ("Forget my PIN, my new PIN is 4321 my old one was 1234", ["User's PIN is 4321"]),
    ("Forget my PIN, my new PIN is 4321 my previous PIN was 1234.", ["User's PIN is 4321"]),
    ("Forget my PIN. My new PIN is 4321 the old one was 1234.", ["User's PIN is 4321"]),
])
def test_the_new_one_is_its_value_alone(said: str, now: list[str]) -> None:
    assert core_after("My PIN is 1234.", said) == now


@pytest.mark.parametrize(("held", "said", "now"), [
    # a comma, "and", "but", "my" or "old" in the value kept it "User's new address"
    ("My address is 3 Oak St.", "Forget my address, my new address is 9 Elm Road, Leeds.",
     "User's address is 9 Elm Road, Leeds"),
    ("My address is 3 Oak St.", "Forget my address, my new address is 5 Old Mill Lane.",
     "User's address is 5 Old Mill Lane"),
    ("My address is 3 Oak St.", "Forget my address, my new address is Flat 2, 9 Elm Road.",
     "User's address is Flat 2, 9 Elm Road"),
    ("My address is 3 Oak St.", "Forget my address, my new address is 5 Main St., thanks!",
     "User's address is 5 Main St."),
    ("My favourite shop is Tesco.",
     "Forget my favourite shop, my new favourite shop is Marks and Spencer.",
     "User's favourite shop is Marks and Spencer"),
    ("My password is hunter2.", "Forget my password, my new password is and-or-but.",
     "User's password is and-or-but"),
    ("My dentist is Dr. Smith.", "Forget my dentist, my new dentist is Dr. Old.",
     "User's dentist is Dr. Old"),
    ("My address is 3 Oak St.", "Forget my address, my new address is 5 The Old Mill Lane.",
     "User's address is 5 The Old Mill Lane"),
])
def test_the_new_one_is_any_value(held: str, said: str, now: str) -> None:
    assert core_after(held, said) == [now]


@pytest.mark.parametrize(("said", "now"), [
    # read into the new value: "User's PIN is 4321, User lives in Leeds"
    ("Forget my PIN, my new PIN is 4321, I live in Leeds now.",
     ["User lives in Leeds", "User's PIN is 4321"]),
    ("Forget my PIN, my new PIN is 4321, my address is 9 Elm Road.",
     ["User's PIN is 4321", "User's address is 9 Elm Road"]),
    ("Forget my PIN. My new PIN is 4321, I live in Leeds now.",
     ["User lives in Leeds", "User's PIN is 4321"]),
])
def test_a_statement_after_the_new_value_is_its_own(said: str, now: list[str]) -> None:
    assert sorted(core_after("My PIN is 1234.", said)) == now


@pytest.mark.parametrize("said", ["Forget my PIN and my password, my new PIN is 4321.",
                                  "Forget my password and my PIN, my new PIN is 4321.",
                                  "Forget my PIN and my password. My new PIN is 4321."])
def test_the_new_one_of_a_thing_listed_is_stored_as_the_thing(said: str) -> None:
    # read as the new one of "my PIN and my password", it was of nothing named, and nothing
    # was forgotten; or, after the password alone, it stayed "User's new PIN"
    assert core_after("My PIN is 1234.", "My password is hunter2.", said) == [
        "User's PIN is 4321"]
