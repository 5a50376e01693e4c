"""A share closing a sentence that cannot be told in full ("I love my job, so does my
wife.": her job or the user's?) is said in the reply as not stored, as a share alone is,
instead of being left out with nothing said."""

from __future__ import annotations

from offline_helpers import chat, core_after

from tiermem.memory import HashingEmbedder, HierarchicalMemory

_DROPPED = {"I love my job, so does my wife.": "so does my wife",
            "I love my job, my wife does too.": "my wife does too",
            "Rex is my dog, Luna is too.": "Luna is too"}


def test_the_reply_says_the_share_was_not_stored() -> None:
    for said, share in _DROPPED.items():
        with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
            reply = chat(memory, said)[0]
        assert f'"{share}" alone does not say who shares what' in reply, said
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        assert "shares what" not in chat(memory, "I'm allergic to nuts, so is my son.")[0]
    assert core_after("I love my job, so does my wife.") == ["User loves User's job"]
