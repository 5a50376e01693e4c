"""A correction typed in lower case to a name of well-known capitals ("sorry i meant
iphone, not pixel"): the name is stored as its makers spell it, not "Iphone"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "now", "note"), [
    (["I have a Pixel.", "sorry i meant iphone, not pixel"], "User has an iPhone",
     '(offline) Corrected "pixel" to "iPhone": User has an iPhone.'),
    (["The Pixel is my phone.", "sorry i meant the iphone, not the pixel"],
     "The iPhone is User's phone",
     '(offline) Corrected "the pixel" to "The iPhone": The iPhone is User\'s phone.'),
    (["I use Bitbucket.", "sorry i meant github, not bitbucket"], "User uses GitHub",
     '(offline) Corrected "bitbucket" to "GitHub": User uses GitHub.'),
])
def test_a_well_known_name_keeps_its_capitals(memory: HierarchicalMemory, said: list[str],
                                              now: str, note: str) -> None:
    replies = chat(memory, *said)
    assert list(core_of(memory)) == [now]
    assert replies[-1].endswith(note)


def test_a_name_typed_with_capitals_stays_as_typed(memory: HierarchicalMemory) -> None:
    chat(memory, "I have a Pixel.", "Sorry, I meant Iphone, not Pixel.")
    assert list(core_of(memory)) == ["User has an Iphone"]
