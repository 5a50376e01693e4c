""""Never mind", "actually keep it" or "no wait, don't" right after a request to forget, in
the same message, takes the request back: nothing is forgotten, nothing is stored for the
words that took it back, and the reply says so."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.cancelled_requests import cancelled_requests
from tiermem.memory.text.sentences import split_sentences


@pytest.mark.parametrize("said", [
    # read apart, the request went through and the PIN was lost
    "Forget it. Never mind.", "Forget my PIN. Never mind.", "Forget that. Never mind.",
    # ... and "Keep it" or "No wait, don't" was stored in its place
    "Forget my PIN... never mind, keep it.", "Forget my PIN. Actually keep it.",
    "Forget it. No wait, don't.", "Forget my PIN! No wait, don't!",
    "Forget my PIN. On second thought, keep it.", "Forget my PIN. Leave it alone.",
    "Forget my PIN. I changed my mind.",
    "Forget it, never mind.", "Forget my PIN, no wait, don't.", "Forget my PIN - never mind.",
])
def test_a_request_taken_back_forgets_nothing(said: str) -> None:
    assert core_after("My PIN is 1234.", said) == ["User's PIN is 1234"]


def test_what_is_told_before_it_is_stored() -> None:
    assert sorted(core_after("My PIN is 1234.", "I like tea. Forget that. Never mind.")) == [
        "User likes tea", "User's PIN is 1234"]


def test_only_the_request_taken_back_is_kept() -> None:
    assert core_after("My PIN is 1234. My address is 3 Pine St.",
                      "Forget my address. Forget my PIN. Never mind.") == ["User's PIN is 1234"]


@pytest.mark.parametrize("said", ["Forget it, never mind.", "Forget my PIN. Never mind."])
def test_the_reply_says_nothing_was_forgotten(said: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "My PIN is 1234.", said)[-1]
        assert list(core_of(memory)) == ["User's PIN is 1234"]
    assert "took back" in reply and "nothing was forgotten" in reply
    assert "Nothing in core memory matched" not in reply


@pytest.mark.parametrize("said", [
    # a "never mind" before the request opens it
    "Never mind, forget that.",
    # words after the request that do not take it back
    "Forget my PIN. Keep it safe.", "Forget my PIN. Wait.", "Forget my PIN. No.",
    "Forget my PIN, it's 4321 now.", "Forget it, my PIN is fine.",
])
def test_other_words_beside_a_request_take_nothing_back(said: str) -> None:
    assert cancelled_requests(split_sentences(said))[1] == []


@pytest.mark.parametrize("said", [
    # "don't keep it" insists on the request: read as taking it back, the PIN was kept
    "Forget my PIN. Don't keep it.", "Forget my PIN. Do not keep it.",
    "Forget it. No, don't keep it.", "Forget my PIN. Don't store it.",
])
def test_a_request_insisted_on_goes_through(said: str) -> None:
    assert core_after("My PIN is 1234.", said) == []
    assert cancelled_requests(split_sentences(said))[1] == []


@pytest.mark.parametrize("said", [
    # after a comma or "and", read as what goes: nothing matched, and the PIN stayed
    "Forget my PIN, don't keep it.", "Forget my PIN and don't keep it.",
    # alone, stored as a fact of its own beside the PIN gone
    "Forget my PIN. Wait, don't keep it.", "Forget my PIN. Don't leave it.",
    "Forget my PIN. Please don't store it.",
])
def test_words_insisting_on_the_request_are_no_fact(said: str) -> None:
    assert core_after("I live in Porto.", "My PIN is 1234.", said) == ["User lives in Porto"]
