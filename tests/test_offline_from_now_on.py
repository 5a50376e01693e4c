""""From now on" is one change cue, read whole: "The standup is cancelled from now on"
stores "The standup is cancelled", not the "from on" left when only "now" was taken out."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.statements import read_statement


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "now"), [
    (["The standup is cancelled from now on."], ["The standup is cancelled"]),
    (["The standup is at 9am.", "The standup is cancelled from now on."],
     ["The standup is cancelled"]),
    (["The standup is at 9am.", "From now on, the standup is at 10am."],
     ["The standup is at 10am"]),
    (["I'm vegan from now on."], ["User is vegan"]),
])
def test_from_now_on_is_a_change_said_whole(memory: HierarchicalMemory, said: list[str],
                                            now: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == now


@pytest.mark.parametrize("sentence", ["The standup is cancelled from now on.",
                                      "From now on the standup is cancelled."])
def test_from_now_on_leaves_no_word_of_itself(sentence: str) -> None:
    statement = read_statement(sentence)
    assert (statement.text, statement.change) == ("The standup is cancelled.", "now")
