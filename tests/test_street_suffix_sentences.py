"""A street's "St." or "Dr." closes its name, and a sentence after it opens anew: "My
address is 3 Pine St. My phone number is 555-1234." was one fact, so a new home retired
the phone number with the address. "St. Louis" and "Dr. Lee" stay whole."""

from __future__ import annotations

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


def test_a_new_home_keeps_the_phone_number() -> None:
    assert sorted(core_after(SAID, "I live in Lisbon.")) == [
        "User lives in Lisbon", "User's phone number is 555-1234"]


def test_and_in_lower_case_goes_on_after_a_street() -> None:
    # cut after "St.", "and my PIN." was a sentence of its own, stored as "User's PIN"
    assert split_sentences("Forget my address 5 Glass St. and my PIN.") == [
        "Forget my address 5 Glass St. and my PIN."]
    assert split_sentences("I live at 5 Glass St. And my PIN is 1234.") == [
        "I live at 5 Glass St.", "And my PIN is 1234."]
    assert core_after("My PIN is 1234.", "My address is 5 Glass St.",
                      "Forget my address 5 Glass St. and my PIN.") == []
