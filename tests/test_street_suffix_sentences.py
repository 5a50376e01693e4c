"""A street's "St." or "Dr." closes its name, and a sentence after it opens anew: "My
address is 3 Pine St. My phone number is 555-1234." was one fact, so a new home retired
the phone number with the address. "St. Louis" and "Dr. Lee" stay whole."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.sentences import split_sentences

SAID = "My address is 3 Pine St. My phone number is 555-1234."


def test_a_street_suffix_ends_the_sentence_before_another() -> None:
    assert split_sentences(SAID) == ["My address is 3 Pine St.", "My phone number is 555-1234."]
    assert split_sentences("My address is 12 Oak Dr. I moved there in May.") == [
        "My address is 12 Oak Dr.", "I moved there in May."]


def test_a_title_before_a_name_stays() -> None:
    assert split_sentences("I live near St. Louis. It is nice.") == [
        "I live near St. Louis.", "It is nice."]
    assert split_sentences("My dentist is Dr. Lee.") == ["My dentist is Dr. Lee."]


@pytest.mark.parametrize("said", ["My address is 5 Elm St. No wait, I'm wrong.",
                                  "My address is 5 Elm St. Sorry, that's wrong.",
                                  "My address is 5 Elm St. Oops, that was a typo."])
def test_a_slip_noticed_after_a_street_opens_a_sentence(said: str) -> None:
    # cut nowhere, "User's address is 5 Elm St. No wait" (or the whole text) was stored
    assert split_sentences(said)[0] == "My address is 5 Elm St."
    assert core_after(said) == ["User's address is 5 Elm St."]


def test_dr_no_stays_a_name() -> None:
    assert split_sentences("Dr. No is my favourite film.") == ["Dr. No is my favourite film."]


def test_a_new_home_keeps_the_phone_number() -> None:
    assert sorted(core_after(SAID, "I live in Lisbon.")) == [
        "User lives in Lisbon", "User's phone number is 555-1234"]


def test_and_in_lower_case_goes_on_after_a_street_in_a_request_to_forget() -> None:
    # cut after "St.", "and my PIN." was a sentence of its own, stored as "User's PIN"
    assert split_sentences("Forget my address 5 Glass St. and my PIN.") == [
        "Forget my address 5 Glass St. and my PIN."]
    assert split_sentences("I live at 5 Glass St. And my PIN is 1234.") == [
        "I live at 5 Glass St.", "And my PIN is 1234."]
    assert core_after("My PIN is 1234.", "My address is 5 Glass St.",
                      "Forget my address 5 Glass St. and my PIN.") == []
    assert core_after("My PIN is 1234.", "My address is 5 Glass St.",
                      "Please delete my address 5 Glass St. and my PIN.") == []
    assert core_after("My PIN is 1234.", "My address is 5 Glass St.",
                      "Forget my address 5 Glass St. and my PIN please.") == []



def test_a_request_about_another_place_goes_on_after_a_street() -> None:
    # cut after "St.", the address went from memory and "my PIN from the CRM" was stored
    said = "Remove my address 5 Glass St. and my PIN from the CRM."
    assert split_sentences(said) == [said]
    assert core_after("My PIN is 1234.", "My address is 5 Glass St.", said) == [
        "Remove User's address from the CRM", "User's PIN is 1234",
        "User's address is 5 Glass St."]


@pytest.mark.parametrize("kept", [
    "but keep my PIN", "but not my PIN", "and not my PIN", "but remember my PIN",
    "but don't forget my PIN", "but keep the PIN"])
def test_a_thing_kept_after_a_street_goes_on_with_the_request(kept: str) -> None:
    # cut after "St.", "but keep my PIN." was stored as the fact "Keep User's PIN"
    said = f"Forget my address 5 Glass St. {kept}."
    assert split_sentences(said) == [said]
    assert core_after("My PIN is 1234.", "My address is 5 Glass St.", said) == [
        "User's PIN is 1234"]


def test_a_clause_after_a_thing_kept_is_a_sentence_of_its_own() -> None:
    assert core_after("My PIN is 1234.", "My address is 5 Glass St.",
                      "Forget my address 5 Glass St. but remember my PIN is 4321.") == [
        "User's PIN is 4321"]


@pytest.mark.parametrize(("said", "cut"), [
    ("I moved to 5 Main St. and it is great.", "I moved to 5 Main St."),
    ("I live on Main St. and... I love it.", "I live on Main St."),
    ("My address is 5 Main St. and that's it.", "My address is 5 Main St."),
    ("My address is 5 Main St. and not 3 Oak St.", "My address is 5 Main St."),
    ("My address is 5 Main St. and I don't like it.", "My address is 5 Main St."),
    ("I used to live on Main St. and now I live on Elm St.", "I used to live on Main St."),
    ("Forget my address 5 Glass St. and my PIN is 4321.", "Forget my address 5 Glass St."),
    ("Forget my address 5 Glass St. and I live in Leeds now.", "Forget my address 5 Glass St."),
    ("Forget my address 5 Glass St. and my wife moved out.", "Forget my address 5 Glass St."),
])
def test_a_clause_after_a_street_and_and_is_a_sentence_of_its_own(said: str, cut: str) -> None:
    # read as one sentence, "5 Main St. and it is great" stored "User is great"
    assert split_sentences(said)[0] == cut


def test_and_after_a_street_keeps_the_facts_apart() -> None:
    assert core_after("I moved to 5 Main St. and it is great.") == ["User moved to 5 Main St."]
    assert core_after("My address is 5 Main St. and that's it.") == [
        "User's address is 5 Main St."]
    assert core_after("My address is 3 Oak St.",
                      "I used to live on Main St. and now I live on Elm St.") == [
        "User lives on Elm St."]
    assert core_after("My PIN is 1234.", "My address is 5 Glass St.",
                      "Forget my address 5 Glass St. and my PIN is 4321.") == [
        "User's PIN is 4321"]
