"""A thing called off and then back on is due when it was before the cancellation: the
time the user last gave it comes back to core beside "back on"; with no time in their
recent messages, "back on" is held alone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.resumptions import takes_back_a_cancellation


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "now"), [
    (["The meeting is on Friday.", "The meeting is cancelled now.",
      "The meeting is back on now."],
     ["The meeting is on Friday", "The meeting is back on"]),
    # the time as moved since, not as first said
    (["The meeting is on Friday at 3pm.", "The meeting is at 5pm now.",
      "The meeting is cancelled now.", "The meeting is back on."],
     ["The meeting is on Friday at 5pm", "The meeting is back on"]),
    (["The meeting is on Friday.", "The meeting is cancelled now.",
      "The meeting is on Monday now.", "The meeting is cancelled now.",
      "The meeting is back on now."],
     ["The meeting is on Monday", "The meeting is back on"]),
    (["The meeting is cancelled now.", "The meeting is back on now."],
     ["The meeting is back on"]),
])
def test_back_on_is_due_when_it_was(memory: HierarchicalMemory, said: list[str],
                                    now: list[str]) -> None:
    chat(memory, *said)
    assert sorted(core_of(memory)) == sorted(now)


def test_only_a_cancellation_taken_back_brings_a_time_back() -> None:
    assert takes_back_a_cancellation("The meeting is back on", ["The meeting is cancelled"])
    assert not takes_back_a_cancellation("The meeting is back on", ["The meeting is great"])
    assert not takes_back_a_cancellation("The meeting is great", ["The meeting is cancelled"])
    assert not takes_back_a_cancellation("The standup is back on",
                                         ["The meeting is cancelled"])
