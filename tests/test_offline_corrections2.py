"""A slip corrected in place of a name: the article before it fits the new word, and a name
of the old one's family keeps the small letters it was typed in."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.corrections import corrected, correction_of


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def _corrected(fact: str, sentence: str) -> str | None:
    correction = correction_of(sentence)
    assert correction is not None
    return corrected(fact, correction)


@pytest.mark.parametrize(("fact", "sentence", "fixed"), [
    ("User uses an iPhone", "sorry i meant pixel, not iphone", "User uses a Pixel"),
    ("An iPhone is what User uses", "sorry i meant pixel, not iphone",
     "A Pixel is what User uses"),
    ("User drives a Tesla", "Sorry, I meant Audi, not Tesla", "User drives an Audi"),
    # Where the spelling does not tell the sound, the article stays as it was.
    ("User has an SSD", "sorry i meant hdd, not ssd", "User has an HDD"),
    # Said with its own article, the new word brings it.
    ("User has an iPhone", "sorry i meant a pixel, not an iphone", "User has a Pixel"),
])
def test_the_article_fits_the_word_put_in(fact: str, sentence: str, fixed: str) -> None:
    assert _corrected(fact, sentence) == fixed


@pytest.mark.parametrize(("fact", "sentence", "fixed"), [
    # A name of pgBouncer's family is spelt as typed; another takes a capital.
    ("User uses pgBouncer", "sorry i meant pgcat, not pgbouncer", "User uses pgcat"),
    ("User uses pgBouncer", "sorry i meant odyssey, not pgbouncer", "User uses Odyssey"),
    # One small letter before the capital is too often shared by chance.
    ("User sells on eBay", "sorry i meant etsy, not ebay", "User sells on Etsy"),
    ("User uses macOS", "sorry i meant windows, not macos", "User uses Windows"),
])
def test_a_name_of_the_same_family_keeps_its_small_letters(fact: str, sentence: str,
                                                           fixed: str) -> None:
    assert _corrected(fact, sentence) == fixed


def test_corrections_through_the_policy(memory: HierarchicalMemory) -> None:
    replies = chat(memory, "I use an iPhone.", "sorry i meant pixel, not iphone",
                   "I use pgBouncer.", "sorry i meant pgcat, not pgbouncer")
    assert list(core_of(memory)) == ["User uses a Pixel", "User uses pgcat"]
    assert 'Corrected "pgbouncer" to "pgcat": User uses pgcat.' in replies[-1]
