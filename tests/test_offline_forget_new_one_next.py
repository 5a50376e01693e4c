"""The new one of what the message before asked to forget ("Forget my PIN.", then "My new
PIN is 4321."): it is the thing itself, as it is said in the same message."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.forget_requests import each_named_apart, named_last


@pytest.mark.parametrize(("held", "asked", "said", "now"), [
    # kept as "User's new PIN is 4321", it stood apart from the PIN it replaced
    (["My PIN is 1234."], "Forget my PIN.", "My new PIN is 4321.", ["User's PIN is 4321"]),
    (["My PIN is 1234."], "Forget my PIN please.", "My new PIN is 4321.",
     ["User's PIN is 4321"]),
    (["My PIN is 1234.", "My address is 3 Oak St."], "Forget my PIN and my address.",
     "My new PIN is 4321.", ["User's PIN is 4321"]),
    (["My password is hunter2."], "Forget my password.", "My new password is swordfish.",
     ["User's password is swordfish"]),
    (["My PIN is 1234."], "Forget my PIN.", "My new PIN is 4321 and my password is trout.",
     ["User's PIN is 4321", "User's password is trout"]),
])
def test_the_new_one_said_next_is_the_thing(held: list[str], asked: str, said: str,
                                             now: list[str]) -> None:
    assert core_after(*held, asked, said) == now


def test_only_the_message_just_before_names_it() -> None:
    assert core_after("My PIN is 1234.", "Forget my PIN.", "Thanks.",
                      "My new PIN is 4321.") == ["User's PIN is 4321"]
    assert core_after("My PIN is 1234.", "Forget my PIN.", "My new address is 9 Elm Road.") == [
        "User's new address is 9 Elm Road"]


def test_what_the_requests_closing_a_message_name() -> None:
    assert named_last("Forget my PIN and my password.") == ["my PIN", "my password"]
    assert named_last("Forget my PIN. I live in Leeds.") == []
    assert each_named_apart(["My new PIN is 4321."], named_before=["my PIN"]) == [
        "My PIN is 4321."]
