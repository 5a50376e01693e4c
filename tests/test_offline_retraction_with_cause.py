"""A retraction giving its cause ("I don't work at Globex anymore due to the layoffs")
denies what it names, not the cause: read with the cause's words, it matched no fact held,
so the job stayed and the retraction was stored beside it."""

from __future__ import annotations

import pytest

from tiermem.agent.offline_statements import core_changes
from tiermem.memory.text.causes import without_cause

JOB = {"User works at Globex": "durable"}


@pytest.mark.parametrize("said", [
    "I don't work at Globex anymore due to the layoffs.",
    "I don't work at Globex anymore, because they closed.",
    "Due to the layoffs, I don't work at Globex anymore.",
])
def test_the_job_ends_whatever_the_cause(said: str) -> None:
    assert core_changes(said, JOB) == (["User works at Globex"], {})


def test_a_state_ends_too() -> None:
    retired, new = core_changes("I'm not vegan anymore because of my health.",
                                {"User is vegan": "durable"})
    assert (retired, new) == (["User is vegan"], {})


def test_denying_nothing_held_it_is_stored_with_its_cause() -> None:
    _, new = core_changes("I don't work at Globex anymore due to the layoffs.", {})
    assert list(new) == ["User doesn't work at Globex anymore due to the layoffs"]


def test_only_a_cause_is_cut() -> None:
    assert without_cause("I no longer work at Globex since May.") == (
        "I no longer work at Globex since May.")
    assert without_cause("Thanks to Tom, I'm no longer on call") == "I'm no longer on call"
