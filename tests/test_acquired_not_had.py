"""What one catches or is sent, named so ("I got a virus called Emotet"), is no thing the
user has from then on: it is kept as said, where a pet got is one the user has."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.acquired import acquired_as_had


@pytest.mark.parametrize("said", [
    "I got a virus called Emotet",
    "I got a nasty virus called Emotet",
    "We got a ticket called INC-42",
    "I got a call named Standup",
    "I got an alert called DiskFull",
    "I got a computer worm called Stuxnet",
    "I got a nasty stomach bug called Norovirus",
])
def test_what_is_caught_or_sent_is_no_thing_had(said: str) -> None:
    assert acquired_as_had(said) is None


def test_a_virus_got_is_kept_as_said() -> None:
    # it was "User has a virus called Emotet", as a pet is had
    assert core_after("I got a virus called Emotet.") == ["User: I got a virus called Emotet"]


@pytest.mark.parametrize(("said", "had"), [
    ("I got a dog named Rex", "I have a dog named Rex"),
    ("I adopted a kitten called Mia", "I have a kitten called Mia"),
    # a worm or a bug may be a pet: it was kept as said, as a virus is
    ("I got a worm named Wiggles", "I have a worm named Wiggles"),
    ("We bought a bug called Buzz", "We have a bug called Buzz"),
    ("I got a pet worm named Wiggles", "I have a pet worm named Wiggles"),
])
def test_a_pet_got_is_still_had(said: str, had: str) -> None:
    assert acquired_as_had(said) == had
