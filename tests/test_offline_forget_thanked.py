"""Thanks, and who a request to forget is said to ("mate"), around it: no words of what
goes. "Cheers mate, forget my PIN." was stored as a statement and the PIN kept."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.forget_requests import each_named_apart

HELD = "My PIN is 1234."


@pytest.mark.parametrize("said", [
    "Cheers mate, forget my PIN.", "Mate, forget my PIN.", "Thanks buddy, please forget my PIN.",
    "Forget my PIN, mate.", "Forget my PIN, cheers mate.", "Cheers mate, forget that.",
])
def test_the_pin_goes_and_nothing_is_stored(said: str) -> None:
    assert core_after(HELD, said) == []


@pytest.mark.parametrize("said", [
    # read as a list, "ty" was one more thing: "Forget my ty."; "thanks" left "and" behind
    "Forget my PIN and ty.", "Forget my PIN and ta.", "Forget my PIN and thanks.",
])
def test_and_thanks_closes_the_request(said: str) -> None:
    assert each_named_apart([said], ["User's PIN is 1234"]) == ["Forget my PIN."]


def test_ty_held_as_a_name_may_be_the_one_named() -> None:
    assert each_named_apart(["Forget my PIN and ty."], ["User's friend Ty lives in Leeds"]) == [
        "Forget my PIN.", "Forget my ty."]
    assert core_after("My mate is Tom.", "Forget my mate.") == []
