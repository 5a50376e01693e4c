"""A "she" after "My boss is Tom." is not the boss: the name said to be theirs is most
often a man's, as Tom's own would be. Read as the boss, "She is a nurse." stored "User's
boss is a nurse"; now the reply asks who "She" is. A name that may be hers still is."""

from __future__ import annotations

from offline_helpers import chat, core_after

from tiermem.memory import HashingEmbedder, HierarchicalMemory


def test_a_pronoun_of_the_other_sex_than_the_name_said_asks_who() -> None:
    for first in ("My boss is Tom.", "Tom is my boss."):
        with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
            reply = chat(memory, first, "She is a nurse.")[-1]
            assert [fact.text for fact in memory.core] == [first.rstrip(".").replace(
                "My ", "User's ").replace("my ", "User's ")], first
        assert 'could not tell who "She" is' in reply
    assert "User's boss is a nurse" in core_after("My boss is Ana.", "She is a nurse.")
    assert "User's boss is a nurse" in core_after("My boss is Tom.", "He is a nurse.")


def test_one_named_keeps_their_own_name_beside_a_name_owning() -> None:
    """Read as Tom's, Ana's name made her a "he": "Ana is Tom's wife." then "He is a
    doctor." stored "Ana is a doctor"."""
    for pronoun in ("He", "She"):
        with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
            reply = chat(memory, "Ana is Tom's wife.", f"{pronoun} is a doctor.")[-1]
            assert "Ana is a doctor" not in [fact.text for fact in memory.core]
        assert f'could not tell who "{pronoun}" is' in reply
    assert "User's boss is a doctor" in core_after("My boss is Tom's wife.", "She is a doctor.")
