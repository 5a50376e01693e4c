""""I work remotely" is how the user works, as lasting as where: said beside a home ("I
live in Lisbon, I work remotely") it is stored apart from it, and read as short-lived it
rotated out of core while the home stayed."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.durability import classify_durability


@pytest.mark.parametrize("said", [
    "I work remotely.", "My wife works from home.",
])
def test_how_one_works_is_durable(said: str) -> None:
    assert classify_durability(said) == ("durable", "works remotely")


@pytest.mark.parametrize("said", [
    "I'm working from home today.", "I'm working from home.",
])
def test_a_day_working_from_home_is_not(said: str) -> None:
    assert classify_durability(said)[0] == "short-lived"


def test_the_remote_work_beside_a_home_is_held_as_durably() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, "I live in Lisbon, I work remotely.")
        assert core_of(memory) == {"User lives in Lisbon": "durable",
                                   "User works remotely": "durable"}
