"""A request to forget one thing that keeps another beside it ("Forget my address but keep
my PIN"): only the first goes, and the one kept is no fact to store."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.forget_requests import each_named_apart

HELD = ("My address is 5 Glass St.", "My PIN is 1234.")


@pytest.mark.parametrize("said", [
    # read whole, the PIN's words outweighed the address's, and nothing went
    "Forget my address but keep my PIN.",
    "Forget my address, but keep my PIN.",
    "Forget my address but leave my PIN alone.",
    "Forget my address but leave my PIN as it is.",
    "Forget my address but not my PIN.",
    "Forget my address but remember my PIN.",
    "Forget my address but don't forget my PIN.",
    "Please forget my address but keep my PIN, thanks.",
    "Delete my address but keep my PIN.",
    # stored as "Keep User's PIN", "User's PIN is fine" or "User's PIN stays"
    "Forget my address and keep my PIN.",
    "Forget my address and keep my PIN please.",
    "Forget my address but my PIN is fine.",
    "Forget my address but my PIN is OK.",
    "Forget my address but my PIN stays.",
    "Forget my address and keep everything else.",
    "Forget my address but keep hold of my PIN.",
    "Forget my address but hang on to my PIN.",
    "Forget my address except my PIN.",
    "Forget my address, except for my PIN.",
])
def test_only_the_thing_named_goes_and_nothing_is_stored(said: str) -> None:
    assert core_after(*HELD, said) == ["User's PIN is 1234"]


def test_the_request_is_read_without_what_it_keeps() -> None:
    assert each_named_apart(["Forget my gym, keep my locker code."]) == ["Forget my gym."]
    assert core_after("My sister is Ana.", "My brother is Tom.",
                      "Forget my sister but keep my brother.") == ["User's brother is Tom"]


@pytest.mark.parametrize("said", [
    "Forget my address but remember my PIN is 4321.",
    "Forget my address and remember my PIN is 4321.",
    "Forget my address and remember my PIN 4321.",
    # "User's address but keep User's PIN is 4321" was stored, and 1234 kept
    "Forget my address but keep my PIN, it's 4321 now.",
    "Forget my address except my PIN, it's 4321 now.",
])
def test_a_new_value_of_the_thing_kept_is_stored(said: str) -> None:
    assert core_after(*HELD, said) == ["User's PIN is 4321"]


def test_a_part_of_the_thing_itself_forgets_nothing() -> None:
    assert len(core_after(*HELD, "Forget my address apart from the postcode.")) == 2


def test_a_new_email_of_what_is_kept_is_stored() -> None:
    # with no digit it was no value: "User's address but keep User's email is c@d.com" was
    # stored beside the old email
    assert core_after("My address is 5 Glass Street.", "My email is a@b.com.",
                      "Forget my address but keep my email, it's c@d.com now.") == [
        "User's email is c@d.com"]
