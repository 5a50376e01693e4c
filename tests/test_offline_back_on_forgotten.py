""""Forget that." after "back on" takes back the time "back on" brought back with it: the
cancellation held again stands alone, not beside a time the user never said then."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.resumptions import brought_back_with


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("messages", [
    ["The meeting is at 3pm.", "The meeting is cancelled.", "The meeting is back on.",
     "Forget that."],
    ["The meeting is at 3pm.", "The meeting is cancelled.",
     "The meeting is back on. Forget that."],
    ["The meeting is on Friday at 3pm.", "The meeting is cancelled.",
     "The meeting is back on at 5pm.", "Forget that."],
])
def test_forgetting_back_on_leaves_the_cancellation_alone(memory: HierarchicalMemory,
                                                          messages: list[str]) -> None:
    chat(memory, *messages)
    assert list(core_of(memory)) == ["The meeting is cancelled"]


def test_a_time_held_before_back_on_stays_when_it_is_forgotten(
        memory: HierarchicalMemory) -> None:
    # Nothing was called off, so "back on" brought no time back: the day was the user's.
    chat(memory, "The meeting is on Friday.", "The meeting is back on.", "Forget that.")
    assert list(core_of(memory)) == ["The meeting is on Friday"]


def test_only_times_of_the_thing_back_on_are_brought_back() -> None:
    told = ["The meeting is back on"]
    stated = ["The meeting is at 3pm", "The meeting is back on", "The deploy is at 5pm",
              "The meeting is long"]
    assert brought_back_with(told, stated) == ["The meeting is at 3pm"]
    assert brought_back_with(["The meeting is at 3pm"], stated) == []
