"""The offline policy on names in a "too": "Tom too" after "I'm allergic to peanuts" may
name someone sharing the statement, so it is never stored as the thing, and "My brother
is married too" after "I'm married to Anna" shares being married, not Anna."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.ellipses import with_ellipses_filled


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "stored"), [
    (["I'm allergic to peanuts.", "Tom too."], ["User is allergic to peanuts"]),
    (["I'm allergic to peanuts. Tom too."], ["User is allergic to peanuts"]),
    (["I like jazz.", "Anna too."], ["User likes jazz"]),
    # beside a lowercase thing a capital says nothing of which it is
    (["I'm allergic to peanuts.", "Shellfish too."], ["User is allergic to peanuts"]),
    # after someone named, a name says who else is so, not whom the user is so to
    (["I'm married to Anna.", "Tom too."], ["User is married to Anna"]),
    # and the adjective is shared without the person
    (["I'm married to Anna.", "My brother is married too."],
     ["User is married to Anna", "User's brother is married"]),
    (["I'm friends with Tom. My wife is friends too."],
     ["User is friends with Tom", "User's wife is friends"]),
])
def test_a_name_is_never_taken_for_what_is_shared(
        memory: HierarchicalMemory, said: list[str], stored: list[str]) -> None:
    _chat(memory, *said)
    assert list(_core(memory)) == stored


def test_beside_a_name_a_capitalised_word_is_a_thing_still() -> None:
    assert with_ellipses_filled(["I like Muse.", "Blur too."]) == ["I like Muse.", "I like Blur"]


def test_a_name_alone_is_dropped_not_filled() -> None:
    assert with_ellipses_filled(["I'm allergic to peanuts.", "Tom too."]) == [
        "I'm allergic to peanuts."]
