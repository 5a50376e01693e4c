"""A thing back on at a time said with it ("The meeting is back on at 5pm now") is due
when it was before the cancellation, moved to that time as a time said alone moves it:
the day carries ("on Friday at 5pm"), and "back on" is held beside it."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.resumptions import at_the_time_said


@pytest.mark.parametrize(("said", "now"), [
    (["The meeting is on Friday at 3pm.", "The meeting is cancelled now.",
      "The meeting is back on at 5pm now."],
     ["The meeting is back on", "The meeting is on Friday at 5pm"]),
    (["The meeting is on Friday.", "The meeting is cancelled now.",
      "The meeting is back on at 5pm."],
     ["The meeting is back on", "The meeting is on Friday at 5pm"]),
    (["The meeting is on Friday at 3pm.", "The meeting is cancelled now.",
      "The meeting is back on on Monday now."],
     ["The meeting is back on", "The meeting is on Monday at 3pm"]),
    # no earlier time to carry: held as said, nothing made up
    (["The meeting is cancelled now.", "The meeting is back on at 5pm now."],
     ["The meeting is back on at 5pm"]),
])
def test_back_on_at_a_time_keeps_the_day(said: list[str], now: list[str]) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, *said)
        assert sorted(core_of(memory)) == now


def test_back_on_alone_leaves_the_time_as_it_was() -> None:
    assert at_the_time_said("The meeting is back on", "The meeting is on Friday at 3pm") == (
        "The meeting is back on", "The meeting is on Friday at 3pm")


def test_a_whole_new_time_replaces_the_one_resumed() -> None:
    assert at_the_time_said("The meeting is back on next week",
                            "The meeting is on Friday at 3pm") == (
        "The meeting is back on", "The meeting is next week")
