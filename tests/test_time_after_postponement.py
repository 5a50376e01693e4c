"""A thing put off waits for a new time: once one is said ("The meeting is at 5pm now"),
"The meeting is postponed" no longer holds. A cancellation, or a postponement that says
a time of its own, stays beside a time said plainly."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize(("said", "now"), [
    (["The meeting is postponed.", "The meeting is at 5pm now."], ["The meeting is at 5pm"]),
    (["The meeting is postponed.", "The meeting is on Monday."], ["The meeting is on Monday"]),
    (["The launch is rescheduled.", "The launch is next week now."],
     ["The launch is next week"]),
    (["The meeting is on Friday at 3pm.", "The meeting is postponed now.",
      "The meeting is at 5pm now."], ["The meeting is at 5pm"]),
    # left: a cancellation, which a time said plainly leaves, and a postponement's own day
    (["The meeting is cancelled.", "The meeting is at 5pm."],
     ["The meeting is at 5pm", "The meeting is cancelled"]),
    (["The meeting is postponed to Friday.", "The meeting is at 5pm."],
     ["The meeting is at 5pm", "The meeting is postponed to Friday"]),
])
def test_a_time_said_ends_a_postponement(said: list[str], now: list[str]) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, *said)
        assert sorted(core_of(memory)) == now
