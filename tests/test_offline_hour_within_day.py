"""A new hour for a thing due on a day at an hour ("The meeting is at noon now" after "...
on Friday at 3pm"): the day still holds, so the fact keeps it with the new hour."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.identifiers import with_new_hour


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "now"), [
    (["The meeting is on Friday at 3pm.", "The meeting is at noon now."],
     "The meeting is on Friday at noon"),
    (["The meeting is on Friday at 3pm.", "The meeting is at 5pm now."],
     "The meeting is on Friday at 5pm"),
    (["The meeting is on Friday at 3pm.", "The meeting is at 5pm."],
     "The meeting is on Friday at 5pm"),
    # A day with its hour ends the old time whole (a day alone keeps the hour:
    # tests/test_offline_day_or_part_of_day_kept.py).
    (["The meeting is on Friday at 3pm.", "The meeting is on Monday at 9am now."],
     "The meeting is on Monday at 9am"),
])
def test_a_new_hour_keeps_the_day(memory: HierarchicalMemory, said: list[str],
                                  now: str) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == [now]


def test_only_one_hour_is_moved() -> None:
    assert with_new_hour("at noon", "on Friday at 3pm") == "on Friday at noon"
    assert with_new_hour("at noon", "on Friday") is None  # no hour to move: both hold
    assert with_new_hour("on Monday", "on Friday at 3pm") is None
    assert with_new_hour("at noon", "on Friday from 3pm to 5pm") is None
