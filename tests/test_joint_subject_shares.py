"""A change of one member of a joint subject ("I work at Acme now" after "Tom and I work
at Globex") ends the joint fact but keeps what it said of the others, as a fact of its
own: Tom still works at Globex."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.joint_shares import shares_kept


@pytest.mark.parametrize(("said", "now"), [
    (["Tom and I work at Globex.", "I work at Acme now."],
     ["Tom works at Globex", "User works at Acme"]),
    (["My wife and I live in Porto.", "I live in Lisbon now."],
     ["User lives in Lisbon", "User's wife lives in Porto"]),
    (["Tom and I work at Globex.", "Tom works at Acme now."],
     ["Tom works at Acme", "User works at Globex"]),
    (["Tom and Anna work at Globex.", "Tom works at Acme now."],
     ["Anna works at Globex", "Tom works at Acme"]),
    (["Tom and I work at Globex.", "Anna and I work at Acme now."],
     ["Anna and User work at Acme", "Tom works at Globex"]),
    # the wife is named through Tom: her share stands as Tom's wife's
    (["Tom and his wife work at Globex.", "Tom works at Acme now."],
     ["Tom works at Acme", "Tom's wife works at Globex"]),
])
def test_the_others_share_of_a_joint_fact_stays(said: list[str], now: list[str]) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, *said)
        assert sorted(core_of(memory)) == now


def test_a_change_of_every_member_keeps_no_share() -> None:
    assert shares_kept("Tom and User work at Acme", "Tom and User work at Globex") == []
    assert shares_kept("User works at Acme", "User works at Globex") == []
