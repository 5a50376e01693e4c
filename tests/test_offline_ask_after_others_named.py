""""Ask Tom, he runs the DB." after a message naming someone else: "I work with Tom and
Ana." then "Ask Tom, he runs the DB." stored nothing and asked who "he" is, as the clause
was read as "He runs the DB." among all those named. The pronoun after a request is the
one asked by name; one asked by no name ("my boss") is read as before."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.asked_of import with_asks_apart


@pytest.mark.parametrize(("said", "apart"), [
    ("Ask Tom, he runs the DB.", ["Ask Tom.", "Tom runs the DB."]),
    ("Ask Tom Smith - he's our DBA.", ["Ask Tom Smith.", "Tom Smith's our DBA."]),
    ("Ask my boss, she runs the DB.", ["Ask my boss.", "She runs the DB."]),
    ("Ask Tom from ops, he runs the DB.", ["Ask Tom from ops.", "He runs the DB."]),
])
def test_the_pronoun_is_the_one_asked_by_name(said: str, apart: list[str]) -> None:
    assert with_asks_apart([said]) == apart


def test_core_holds_what_tom_does_after_ana_was_named() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "I work with Tom and Ana.", "Ask Tom, he runs the DB.")[-1]
        held = list(core_of(memory))
    assert ("Tom runs the DB" in held, "could not tell who" in reply) == (True, False)
