"""What was meant, closing a request to forget, is still of the thing it named: which one
("Forget my PIN, I meant my new one") or its new value before a goodbye ("I meant 4321,
thanks, bye"), which read as part of the value lost it."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize(("said", "kept"), [
    # "User: I meant" was stored
    ("Forget my PIN, I meant my new one.", []),
    ("Forget my PIN, I mean the old one.", []),
    # 4321 was lost with the goodbye read as part of it
    ("Forget my PIN, I meant 4321, thanks, bye.", ["User's PIN is 4321"]),
    ("Forget my PIN, I meant 4321, bye.", ["User's PIN is 4321"]),
])
def test_what_was_meant_closing_a_request(said: str, kept: list[str]) -> None:
    assert core_after("My PIN is 1234.", said) == kept


@pytest.mark.parametrize("said", [
    # asked which word "my new one" corrects, and "User: I mean the old one" was stored
    "Forget my PIN. I meant my new one.",
    "Forget my PIN. I mean the old one.",
    "Forget my PIN. I meant the old one, thanks.",
])
def test_which_one_was_meant_in_a_sentence_of_its_own(said: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "My PIN is 1234.", said)[-1]
        assert core_of(memory) == {}
    assert "User's PIN is 1234" in reply and "corrects" not in reply
