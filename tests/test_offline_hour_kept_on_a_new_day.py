"""A thing due at an hour with no day ("The meeting is at 3pm") moved to a day ("... on
Monday now") keeps its hour, as one due on a day at an hour does."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.identifiers import with_new_day


@pytest.mark.parametrize(("said", "now"), [
    (["The meeting is at 3pm.", "The meeting is on Monday now."],
     ["The meeting is on Monday at 3pm"]),
    (["The standup is at 9am.", "The standup is tomorrow now."],
     ["The standup is tomorrow at 9am"]),
    (["The meeting is in the morning.", "The meeting is on Monday."],
     ["The meeting is on Monday in the morning"]),
    # a new hour said with the day, or no one day, ends the hour
    (["The meeting is at 3pm.", "The meeting is on Monday at 5pm now."],
     ["The meeting is on Monday at 5pm"]),
    (["The meeting is at 3pm.", "The meeting is next week now."],
     ["The meeting is next week"]),
])
def test_a_day_alone_keeps_an_hour_said_alone(said: list[str], now: list[str]) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, *said)
        assert sorted(core_of(memory)) == now


def test_only_an_hour_is_kept() -> None:
    assert with_new_day("on Monday", "at 3pm") == "on Monday at 3pm"
    assert with_new_day("on Monday", "at 3pm or 5pm") is None
    assert with_new_day("on Monday", "stable") is None
