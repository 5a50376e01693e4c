"""A greeting to one by name says no more than "Hi there": "Hi Tom, I'm Sorry." (or "Hi
Tom.", "Hey Siri, thank you.") stored "Hi Tom" (or the greeting whole) as a fact, where
"Hi there, I'm sorry." stored nothing. An introduction after it still names the user."""

from __future__ import annotations

from offline_helpers import core_after

from tiermem.memory.text.extract import extract_facts


def test_a_greeting_by_name_and_chat_alone_is_no_fact() -> None:
    for said in ("Hi Tom, I'm Sorry.", "Hi Tom, I'm so sorry.", "Hi Tom.", "Hello Dr Lee.",
                 "Hi Tom, thanks.", "Hey Siri, thank you.", "Hi Tom, good morning."):
        assert extract_facts(said) == [], said
        assert core_after(said) == [], said


def test_what_follows_a_greeting_by_name_is_still_read() -> None:
    assert core_after("Hi Tom, I'm Ana.") == ["User's name is Ana"]
    assert core_after("Hi Tom, I'm tired.") == ["User: Hi Tom, I'm tired"]
    assert core_after("Hiking is fun.") == ["Hiking is fun"]
