"""A state said of one time ("The gym is busy in the evening") and another said of another
time ("... closed on Sunday now") both hold: neither says how the thing is when the other
does. Said of one time, the new state ends the old."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.identifiers import at_other_times


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "now"), [
    (["The gym is busy in the evening.", "The gym is closed on Sunday now."],
     ["The gym is busy in the evening", "The gym is closed on Sunday"]),
    (["The gym is busy in the evening.", "The gym is closed on Sunday."],
     ["The gym is busy in the evening", "The gym is closed on Sunday"]),
    (["The gym is busy in the evening.", "The gym is quiet in the morning now."],
     ["The gym is busy in the evening", "The gym is quiet in the morning"]),
    # one time: the new state is how it is then
    (["The gym is busy in the evening.", "The gym is quiet in the evening now."],
     ["The gym is quiet in the evening"]),
    (["The gym is closed on Sunday.", "The gym is open on Sunday now."],
     ["The gym is open on Sunday"]),
])
def test_states_at_other_times_both_hold(memory: HierarchicalMemory, said: list[str],
                                         now: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == now


def test_until_when_a_state_holds_is_no_time_of_its_own() -> None:
    assert at_other_times("closed on Sunday", "busy in the evening")
    assert not at_other_times("closed on Sunday", "closed Sunday")
    assert not at_other_times("down until 5pm", "slow in the morning")
    assert not at_other_times("closed on Sunday", "busy")
