"""A time said while the thing was called off, then taken back, is not the one "back on"
brings back: it was ended by "Forget that." (or a denial), not by a cancellation, even
though the cancellation was still held when it went."""

from __future__ import annotations

from offline_helpers import core_of, said

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.resumptions import time_resumed

MEETING_OFF = "The meeting is cancelled"


def test_a_time_taken_back_while_called_off_is_not_brought_back() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        said(memory, "The meeting is at 3pm.", "The meeting is cancelled.",
             "The meeting is at 4pm now.", "Forget that.", "The meeting is back on now.")
        # The 3pm the cancellation ended was replaced by 4pm before "Forget that.": which
        # time is due nothing says, so "back on" holds no time (3pm stays in archival).
        assert core_of(memory) == {"The meeting is back on": "short-lived"}


def test_only_a_new_cancellation_keeps_the_time_due() -> None:
    held_after = [{"The meeting is at 3pm": "short-lived"},
                  {MEETING_OFF: "short-lived"},
                  {MEETING_OFF: "short-lived", "The meeting is at 4pm": "short-lived"},
                  {MEETING_OFF: "short-lived"}]
    assert time_resumed("The meeting is back on", held_after) is None
    # Called off anew, the time it had is still the one due.
    assert time_resumed("The meeting is back on", held_after[:2]) == "The meeting is at 3pm"
