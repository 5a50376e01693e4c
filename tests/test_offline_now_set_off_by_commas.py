"""A change cue set off by commas ("The standup, now, is at 10am") is taken out with both
commas: the fact stored reads as said, and it ends the time it changes."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.statements import read_statement


@pytest.mark.parametrize("changed", ["The standup, now, is at 10am.",
                                     "The standup, from now on, is at 10am."])
def test_a_cue_between_commas_changes_the_time(changed: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, "The standup is at 9am.", changed)
        assert sorted(core_of(memory)) == ["The standup is at 10am"]


@pytest.mark.parametrize(("said", "read"), [
    ("The standup, now, is at 10am.", "The standup is at 10am."),
    ("The standup is at 10am now, I think.", "The standup is at 10am, I think."),
    ("The standup is cancelled from now on.", "The standup is cancelled."),
])
def test_only_the_cue_and_its_commas_go(said: str, read: str) -> None:
    statement = read_statement(said)
    assert (statement.text, statement.change) == (read, "now")
