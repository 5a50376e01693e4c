""""It's 6pm now" or "It's Monday today" after "The meeting is at 5pm" tells the time of
day or the date, not the meeting's new time: the meeting keeps its time, and no time is
made up for it."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize(("said", "now"), [
    (["The meeting is at 5pm.", "It's 6pm now."], ["It's 6pm", "The meeting is at 5pm"]),
    (["The meeting is on Friday.", "Actually it's Monday today."],
     ["It's Monday today", "The meeting is on Friday"]),
    (["The meeting is on Friday.", "It's Monday now."],
     ["It's Monday", "The meeting is on Friday"]),
    # a time said as the meeting's still moves it
    (["The meeting is at 5pm.", "It is at 6pm now."], ["The meeting is at 6pm"]),
    (["The meeting is on Friday.", "No, it's Monday."], ["The meeting is Monday"]),
])
def test_the_clock_is_no_new_time_of_the_meeting(said: list[str], now: list[str]) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, *said)
        assert sorted(core_of(memory)) == now
