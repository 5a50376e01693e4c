"""A time said with a change cue after a cancellation ("The meeting is at 5pm now") puts
the thing back on at that time, as "back on at 5pm" does: core never holds "cancelled"
beside the time it is due. The day or hour the cancellation ended is kept, and "Forget
that." holds the cancellation again."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.identifiers import due_again
from tiermem.memory.text.resumptions import time_resumed


@pytest.mark.parametrize(("said", "now"), [
    (["The meeting is cancelled.", "The meeting is at 5pm now."], ["The meeting is at 5pm"]),
    (["The meeting is cancelled.", "The meeting is on Friday now."],
     ["The meeting is on Friday"]),
    (["The meeting is on Friday at 3pm.", "The meeting is cancelled.",
      "The meeting is on Monday now."], ["The meeting is on Monday at 3pm"]),
    (["The meeting is on Friday at 3pm.", "The meeting is cancelled now.",
      "The meeting is at 5pm now."], ["The meeting is on Friday at 5pm"]),
    (["The meeting is on Friday at 3pm.", "The meeting is cancelled.",
      "The meeting is on Monday now.", "Forget that."], ["The meeting is cancelled"]),
    # left: one occasion called off, and a time said plainly
    (["The standup is cancelled today.", "The standup is at 9am now."],
     ["The standup is at 9am", "The standup is cancelled today"]),
])
def test_a_time_said_now_puts_it_back_on(said: list[str], now: list[str]) -> None:
    assert core_after(*said) == now


def test_only_a_time_ends_a_cancellation_of_every_occasion() -> None:
    assert due_again("at 5pm", "called off")
    assert not due_again("at 5pm", "cancelled on Friday")
    assert not due_again("stable", "cancelled")
    assert not due_again("at 5pm", "postponed")


def test_a_cancellation_held_again_by_forget_brings_no_time_back() -> None:
    held_after = [{"The meeting is at 3pm"}, {"The meeting is cancelled"},
                  {"The meeting is at 4pm"}, {"The meeting is cancelled"}]
    said = ["The meeting is at 3pm.", "The meeting is cancelled.", "The meeting is at 4pm now."]
    # "at 4pm now" put it back on; "Forget that." took 4pm back, a new cancellation did not
    assert time_resumed("The meeting is back on", held_after, held_after,
                        [*said, "Forget that."]) is None
    assert (time_resumed("The meeting is back on", held_after, held_after,
                         [*said, "The meeting is cancelled now."]) == "The meeting is at 4pm")
