"""The offline policy on "I do too" after someone's doing said with any verb: "My wife
jogs. I do too." stores the user's jogging beside hers, when the verb's plain form is sure
and nothing in what follows it points at a person."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.ellipses import with_ellipses_filled
from tiermem.memory.text.sentences import split_sentences


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("said", [
    ["My wife jogs. I do too."],
    ["My wife jogs.", "I do too."],
    ["My wife jogs, and I do too."],
])
def test_the_user_s_doing_is_stored_beside_hers(memory: HierarchicalMemory,
                                               said: list[str]) -> None:
    _chat(memory, *said)
    assert list(_core(memory)) == ["User's wife jogs", "User: I jog"]


@pytest.mark.parametrize(("said", "told"), [
    ("My wife jogs every morning. I do too.", "I jog every morning"),
    ("Tom cycles to work. So do I.", "I cycle to work"),
    ("My wife always jogs. I do too.", "I always jog"),
    ("My wife teaches math. I do too.", "I teach math"),
    ("My son studies French. I do too.", "I study French"),
    ("My wife goes hiking on Sundays. I do too.", "I go hiking on Sundays"),
    ("My husband fixes bikes. I do too.", "I fix bikes"),
])
def test_i_do_too_takes_the_verb_phrase(said: str, told: str) -> None:
    assert with_ellipses_filled(split_sentences(said))[-1] == told


@pytest.mark.parametrize("said", [
    "My wife focuses on work. I do too.",    # "focus" or "focuse": unsure
    "My wife jogs with her sister. I do too.",  # her sister is not the user's
    "The dogs bark. I do too.",              # "dogs" is no verb
    "My little sisters dance. I do too.",    # "little" is no one of the user's
    "My wife jogs. I am too.",               # "am" shares no doing
    "My wife is vegan. So do I.",            # "do" shares no being
    "Tom was late. I do too.",               # nor a past "was"
    "Tom loves himself. I do too.",          # himself is Tom, not the user
    "My wife is proud of herself. I am too.",
    "Tom is a friend of ours. I am too.",
])
def test_a_doing_the_speaker_cannot_take_over_is_dropped(said: str) -> None:
    first = split_sentences(said)[0]
    assert with_ellipses_filled(split_sentences(said)) == [first]
