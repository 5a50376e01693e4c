"""A day or an hour said plainly while a thing is called off moves the time the
cancellation ended: "back on" brings that time back moved, with nothing of it lost. Said
with "now", it puts the thing back on at once, moved the same way."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.resumptions import time_resumed


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("moved", "due"), [
    ("The meeting is on Monday now.", "The meeting is on Monday at 3pm"),
    ("The meeting is at 5pm now.", "The meeting is on Friday at 5pm"),
    ("The meeting is on Monday.", "The meeting is on Monday at 3pm"),
    ("The meeting is at 5pm.", "The meeting is on Friday at 5pm"),
])
def test_back_on_keeps_what_the_move_did_not_change(memory: HierarchicalMemory, moved: str,
                                                    due: str) -> None:
    chat(memory, "The meeting is on Friday at 3pm.", "The meeting is cancelled.", moved,
         "The meeting is back on.")
    assert sorted(core_of(memory)) == sorted([due, "The meeting is back on"])


def test_forgetting_back_on_holds_again_the_day_said_while_off(
        memory: HierarchicalMemory) -> None:
    chat(memory, "The meeting is on Friday at 3pm.", "The meeting is cancelled.",
         "The meeting is on Monday.", "The meeting is back on.", "Forget that.")
    assert sorted(core_of(memory)) == ["The meeting is cancelled", "The meeting is on Monday"]


def test_a_day_said_while_called_off_keeps_the_hour_ended() -> None:
    held_after = [{"The meeting is on Friday at 3pm": "short-lived"},
                  {"The meeting is cancelled": "short-lived"},
                  {"The meeting is cancelled": "short-lived",
                   "The meeting is on Monday": "short-lived"}]
    assert (time_resumed("The meeting is back on", held_after)
            == "The meeting is on Monday at 3pm")
    # Held while nothing called the meeting off, "on Monday" is the time as it stood.
    not_off = [held_after[0], {"The meeting is on Monday": "short-lived"}, held_after[1]]
    assert time_resumed("The meeting is back on", not_off) == "The meeting is on Monday"
