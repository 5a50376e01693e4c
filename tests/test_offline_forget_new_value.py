"""The offline policy on "Forget my number, it's 555-0199 now": the old value goes and the
new one, which is news, is stored in its place."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.forget_requests import each_named_apart
from tiermem.memory.text.plan_values import value_kind


@pytest.mark.parametrize(("held", "said", "now"), [
    ("My number is 555-0100.", "Forget my number, it's 555-0199 now.",
     "User's number is 555-0199"),
    # "alarm time" names the alarm held as "6am": said so, the 6am stayed beside the 7am
    ("My alarm is 6am.", "Forget my alarm time, it's 7am now.", "User's alarm is 7am"),
    ("My locker code is 1234.", "Please forget my locker code, it is 5678.",
     "User's locker code is 5678"),
])
def test_the_new_value_replaces_the_one_forgotten(held: str, said: str, now: str) -> None:
    assert core_after("I live in Porto.", held, said) == ["User lives in Porto", now]


@pytest.mark.parametrize("said", [
    # an hour said of a code, or "OK", is no new code: it tells the time, or a remark
    "Forget my password, it's 2am.",
    "Forget my password, it's OK.",
    "Forget my password, it's 10 years old.",
])
def test_a_value_of_another_kind_is_no_new_value(said: str) -> None:
    assert not any(sentence.startswith("My password is")
                   for sentence in each_named_apart([said], ["User's password is hunter2"]))


def test_an_hour_with_nothing_held_may_be_the_time_it_is() -> None:
    assert each_named_apart(["Forget my number, it's 555-0199 now."]) == [
        "Forget my number.", "My number is 555-0199."]
    assert "My alarm is 2am." not in each_named_apart(["Forget my alarm, it's 2am."])


@pytest.mark.parametrize(("held", "said"), [
    # a number in the remark that is no new value of what is held: read whole, nothing went
    ("My password is hunter2.", "Forget my password, it's 2am."),
    ("My password is hunter2.", "Forget my password, it's 10 years old."),
    ("My sister lives in Berlin.", "Forget my sister, she is 40."),
])
def test_a_remark_with_a_number_still_forgets(held: str, said: str) -> None:
    assert core_after("I live in Porto.", held, said) == ["User lives in Porto"]


def test_a_statement_after_such_a_remark_is_kept() -> None:
    assert each_named_apart(["Forget my password, it's 2am, I'm off to bed."],
                            ["User's password is hunter2"]) == [
        "Forget my password.", "I'm off to bed."]


def test_a_new_value_after_a_list_is_the_last_things() -> None:
    assert core_after("My address is 12 Oak Street.", "My PIN is 1234.",
                      "Forget my address and my PIN, it's 4321 now.") == ["User's PIN is 4321"]


def test_a_statement_after_the_new_value_is_stored_too() -> None:
    assert core_after("My address is 12 Oak Street.", "My PIN is 1234.",
                      "Forget my PIN, it's 4321 now and my address is 9 Elm Road.") == [
        "User's PIN is 4321", "User's address is 9 Elm Road"]


@pytest.mark.parametrize(("held", "said", "now"), [
    # read with the value, "call me" made it no value, and the new number was lost
    ("My number is 555-0100.", "Forget my number, it's 555-0199 now, call me.",
     "User's number is 555-0199"),
    ("My flight is at 7pm.", "Forget my flight, it's at 9pm now, not 7pm.",
     "User's flight is at 9pm"),
])
def test_a_clause_after_the_new_value_leaves_it_stored(held: str, said: str, now: str) -> None:
    assert core_after("I live in Porto.", held, said) == ["User lives in Porto", now]


@pytest.mark.parametrize("held", [[], ["User's gym is FitOne"]])
def test_open_all_hours_is_no_new_value(held: list[str]) -> None:
    # "24/7" holds digits, and with no gym held it was stored as the gym's new code
    assert not any(sentence.startswith("My gym is")
                   for sentence in each_named_apart(["Forget my gym, it's 24/7."], held))


def test_open_all_hours_with_nothing_held_stores_nothing() -> None:
    assert core_after("I live in Porto.", "Forget my gym, it's 24/7.") == ["User lives in Porto"]


@pytest.mark.parametrize(("held", "said"), [
    # said anew, the PIN came straight back to core, though the reply said it was retired
    ("My PIN is 1234.", "Forget my PIN, it's 1234."),
    ("My flight is at 7pm.", "Forget my flight, it's at 7pm."),
])
def test_the_value_held_told_again_names_what_goes(held: str, said: str) -> None:
    assert core_after("I live in Porto.", held, said) == ["User lives in Porto"]


def test_a_value_taken_back_in_a_later_clause_is_not_stored() -> None:
    # cut before "no, hunter4", the remark told hunter3, which the speaker took back
    said = "Forget my password, it's hunter3, no, hunter4."
    assert not any(sentence.startswith("My password is")
                   for sentence in each_named_apart([said], ["User's password is hunter2"]))


@pytest.mark.parametrize(("held", "said", "now"), [
    # holding no digit, the name was taken for a remark, and the new one was lost
    ("My sister is Ana.", "Forget my sister, it's Maria now.", "User's sister is Maria"),
    ("My dentist is Dr Lee.", "Forget my dentist, it's Dr Kim now.", "User's dentist is Dr Kim"),
    # after an article the make was of no kind, and the new one was lost
    ("My car is a Honda.", "Forget my car, it's a Tesla now.", "User's car is a Tesla"),
    ("My car is a Honda.", "Forget my car, it's a Mercedes-Benz now.",
     "User's car is a Mercedes-Benz"),
])
def test_a_new_name_of_a_thing_held_by_name_is_stored(held: str, said: str, now: str) -> None:
    assert core_after("I live in Porto.", held, said) == ["User lives in Porto", now]


@pytest.mark.parametrize(("held", "said"), [
    ([], "Forget my meeting, it's Important."),
    (["User's password is hunter2"], "Forget my password, it's Important."),
    # one capital with no word of the change stresses a remark: "boss is Complicated" was
    # stored
    (["User's boss is Ann"], "Forget my boss, it's Complicated."),
    (["User's car is a Honda"], "Forget my car, it's a mess."),
])
def test_a_capital_is_no_name_of_a_thing_not_held_by_one(held: list[str], said: str) -> None:
    assert each_named_apart([said], held)[1:] == []


def test_a_word_asking_for_all_of_a_thing_held_forgets_it() -> None:
    # read with "time", the request matched no fact, and the alarm stayed
    assert not core_after("My alarm is 6am.", "Forget my alarm time.")
    assert not core_after("My bank is Chase.", "Forget my bank details, please.")
    # a thing held with that word is the one that goes
    assert core_after("My alarm is 6am.", "My alarm time is flexible.",
                      "Forget my alarm time.") == ["User's alarm is 6am"]
    assert core_after("My time zone is CET.", "Forget my alarm time.") == [
        "User's time zone is CET"]


@pytest.mark.parametrize(("held", "said", "kept"), [
    # named as "my alarm", the alarm's sound went with its time
    (["My alarm is 6am.", "My alarm sound is birdsong."], "Forget my alarm time.",
     ["User's alarm sound is birdsong"]),
    # the flight's time zone went, and its time stayed
    (["My flight is at 9pm.", "My flight time zone is CET."], "Forget my flight time.",
     ["User's flight time zone is CET"]),
    # a time said first, with more after it, is still the alarm's time: nothing went
    (["My alarm is at 6am on weekdays.", "My alarm sound is birdsong."],
     "Forget my alarm time.", ["User's alarm sound is birdsong"]),
    # no time of the screen is held: its size is no screen time
    (["My screen is 27 inches."], "Forget my screen time.", ["User's screen is 27 inches"]),
])
def test_a_time_asked_to_be_forgotten_takes_only_that_time(
        held: list[str], said: str, kept: list[str]) -> None:
    assert core_after(*held, said) == kept


def test_a_word_stressed_with_a_hyphen_is_no_new_name() -> None:
    # "Write-off" passed for a make, and "User's car is a Write-off" was stored
    assert core_after("I live in Porto.", "My car is a Honda.",
                      "Forget my car, it's a Write-off now.") == ["User lives in Porto"]


def test_a_name_with_a_lower_case_part_between_is_still_a_name() -> None:
    # read as a word stressed, the new hometown was lost with the old
    assert core_after("My hometown is Leeds.",
                      "Forget my hometown, it's Stratford-upon-Avon now.") == [
        "User's hometown is Stratford-upon-Avon"]


@pytest.mark.parametrize(("held", "said", "kept"), [
    # named in a list, "my alarm time" matched no fact held and the alarm stayed
    (["My alarm is 6am.", "My alarm sound is birdsong."], "Forget my alarm time and my PIN.",
     ["User's alarm sound is birdsong"]),
    (["My bank is Chase.", "I live in Porto."], "Forget my bank details and my PIN.",
     ["User lives in Porto"]),
])
def test_a_thing_of_a_list_is_named_as_the_facts_held_name_it(
        held: list[str], said: str, kept: list[str]) -> None:
    assert core_after(*held, said) == kept


def test_a_long_capitalized_word_is_found_no_name_in_steady_time() -> None:
    # A word allowed to end anywhere was tried every way it could be cut: each letter
    # doubled the work, so 64 letters would run for ages and meet the suite's timeout.
    # Cut at spaces only, it is found no name at once.
    long = "".join(chr(ord("A") + i % 26) for i in range(64)) + " x"
    assert value_kind(long) is None
    assert value_kind(long + " now") is None


@pytest.mark.parametrize("said", [
    # the number of a remark was stored as the new PIN: "User's PIN is 2024"
    "Forget my PIN. It's 2024, time to change.",
    "Forget my PIN, it's 2024, time to change.",
    # with a doubt, no value to hold, and "User: I think" was stored beside it
    "Forget my PIN. It's 4321, I think.",
    "Forget my PIN, it's 4321, I think.",
    "Forget my PIN. It's 3 years old.",
    "Forget my PIN. It's 10 past 5.",
    "Forget my PIN. It's 2am.",
])
def test_a_number_in_a_remark_is_no_new_value(said: str) -> None:
    assert core_after("I live in Porto.", "My PIN is 1234.", said) == ["User lives in Porto"]


@pytest.mark.parametrize("said", [
    "Forget my PIN. It's 4321.", "Forget my PIN. It's 4321 now.",
    # alone, "It's 4321" was stored, of nothing
    "Forget my PIN. It's now 4321.",
    "Forget my PIN. It's 4321 now, call me.", "Forget my PIN, it's 4321, thanks.",
    # asked to be kept, it was read as a remark and lost
    "Forget my PIN. It's 4321, remember that.", "Forget my PIN, it's 4321, note it.",
    "Forget my PIN. It's 4321, remember that please.",
    # asked to be kept to itself, it was read as a remark and lost
    "Forget my PIN. It's 4321, but don't tell anyone.", "Forget my PIN, it's 4321, keep it secret.",
    "Forget my PIN. It's 4321, don’t share it.",
])
def test_a_whole_value_sentence_is_the_new_value(said: str) -> None:
    assert core_after("My PIN is 1234.", said) == ["User's PIN is 4321"]


@pytest.mark.parametrize("said", [
    "Forget my PIN. It's 4321, don't tell Tom.",
    "Forget my PIN. It's 4321, don't tell anyone about it.",
])
def test_a_remark_on_whom_to_tell_is_still_a_remark(said: str) -> None:
    assert core_after("My PIN is 1234.", said) == []


@pytest.mark.parametrize("said", [
    # read whole, the request matched nothing held and the old address stayed
    "Forget my address. It's 9 Elm Road, time for bed.",
    "Forget my address, it's 9 Elm Road, time to change.",
    "Forget my address. It's 2am, time for bed.",
    # "User: I think" was stored beside an address told with a doubt
    "Forget my address. It's 9 Elm Road, I think.",
])
def test_a_remark_on_an_address_held_as_where_one_lives_leaves_it_forgotten(said: str) -> None:
    assert core_after("My PIN is 1234.", "I live at 7 Oak St.", said) == ["User's PIN is 1234"]


@pytest.mark.parametrize("said", [
    # a dash after the request made it name "PIN - it's 4321", matching nothing held
    "Forget my PIN - it's 4321.", "Forget my PIN – it's 4321.", "Forget my PIN—it's 4321.",
])
def test_a_dash_after_the_request_is_read_as_its_comma(said: str) -> None:
    assert core_after("My number is 555-0100.", "My PIN is 1234.", said) == [
        "User's PIN is 4321", "User's number is 555-0100"]


def test_a_hyphen_in_the_new_value_is_no_dash() -> None:
    assert core_after("My number is 555-0100.", "Forget my number - it's 555-0199.") == [
        "User's number is 555-0199"]
