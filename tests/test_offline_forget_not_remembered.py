"""The offline policy on asking not to be remembered ("Stop remembering that I work at
Globex", "I don't want you to remember where I work"): a request to forget, never a fact."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("said", ["I don't want you to remember where I work.",
                                  "Stop remembering that I work at Globex.",
                                  "Please don't store where I work.",
                                  "Don't keep that I work at Globex."])
def test_asking_not_to_be_remembered_retires_the_fact(memory: HierarchicalMemory,
                                                      said: str) -> None:
    # Stored as a quote, the request kept the job it asked to drop, and itself besides.
    _chat(memory, "I work at Globex.", said)
    assert _core(memory) == {}


@pytest.mark.parametrize("said", ["Stop remembering that.", "Please don't save that."])
def test_asking_not_to_remember_that_retires_what_was_just_said(memory: HierarchicalMemory,
                                                                said: str) -> None:
    _chat(memory, "I live in Lisbon.", "I work at Globex.", said)
    assert _core(memory) == {"User lives in Lisbon": "durable"}


def test_a_request_to_stop_keeping_my_x_retires_every_fact_of_it(
        memory: HierarchicalMemory) -> None:
    _chat(memory, "I live in Lisbon.", "My phone number is 555-1234.",
          "Don't keep my phone number.")
    assert _core(memory) == {"User lives in Lisbon": "durable"}


@pytest.mark.parametrize("said", ["I don't remember where I parked.",
                                  "Don't keep the door open."])
def test_what_only_sounds_like_it_asks_nothing(memory: HierarchicalMemory, said: str) -> None:
    # Not said to the assistant about what it holds: the job stays.
    _chat(memory, "I work at Globex.", said)
    assert "User works at Globex" in _core(memory)


@pytest.mark.parametrize("said", ["Forget my password, please.",
                                  "Never keep my password in your notes, please.",
                                  "Don't keep my password in your memory anymore.",
                                  "Never store my password anywhere.",
                                  "Forget my password for good."])
def test_how_it_is_asked_is_no_word_of_what_goes(memory: HierarchicalMemory,
                                                 said: str) -> None:
    # Read as words of the password, "please" or "anywhere" matched no fact held, and the
    # password stayed.
    _chat(memory, "I live in Lisbon.", "My password is hunter2.", said)
    assert _core(memory) == {"User lives in Lisbon": "durable"}


@pytest.mark.parametrize("said", ["I want you to forget my password.",
                                  "I'd like you to forget my password.",
                                  "Delete my password from your memory.",
                                  "I need you to forget that."])
def test_a_wish_to_forget_retires_what_it_names(memory: HierarchicalMemory, said: str) -> None:
    # Read as a statement of the speaker's, the wish forgot nothing.
    _chat(memory, "I live in Lisbon.", "My password is hunter2.", said)
    assert _core(memory) == {"User lives in Lisbon": "durable"}
