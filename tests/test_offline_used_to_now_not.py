""""I used to smoke but now I don't" ends the smoking held. Read with "used" for its verb,
the clause denied "I no longer used to smoke", whose words matched no habit held, so
"User: I smoke" stayed beside "User: I used to smoke"."""

from __future__ import annotations

from tiermem.agent.offline_statements import core_changes
from tiermem.memory.text.no_longer import held_once
from tiermem.memory.text.statements import past_apart


def test_the_habit_held_ends() -> None:
    retired, new = core_changes("I used to smoke but now I don't.",
                                {"User: I smoke": "short-lived"})
    assert retired == ["User: I smoke"]
    assert list(new) == ["User: I used to smoke"]


def test_a_home_held_ends() -> None:
    retired, _ = core_changes("I used to live in Berlin but not anymore.",
                              {"User lives in Berlin": "durable"})
    assert retired == ["User lives in Berlin"]


def test_the_denial_names_the_habit() -> None:
    assert past_apart("I used to live in Berlin, now I don't.") == [
        "I no longer live in Berlin", "I used to live in Berlin"]
    ended = held_once("I used to smoke but now I don't.")
    assert ended is not None and (ended.plain, ended.rest) == ("smoke", "")


def test_a_state_once_held_is_said_with_am() -> None:
    retired, new = core_changes("I used to be vegan, now I'm not and my wife isn't either.",
                                {"User is vegan": "durable"})
    assert retired == ["User is vegan"]
    assert list(new) == ["User's wife isn't vegan"]


def test_the_wife_shares_the_habit_ended() -> None:
    _, new = core_changes("I used to smoke, now I don't and my wife doesn't either.", {})
    assert "User's wife doesn't smoke" in new
