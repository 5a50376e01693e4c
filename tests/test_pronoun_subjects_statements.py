""""I met Tom's wife. She works at Globex." is of Tom's wife: a statement that opens with
"he" or "she" is told of the one person named before it, as a retraction is. Stored as
said, "She works at Globex" and "He is great." named no one; with no one clearly named,
such a statement is left out and the reply asks for the name."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    ("I met Tom's wife. She works at Globex.", "Tom's wife works at Globex"),
    ("My wife is a nurse. She works at the hospital.", "User's wife works at the hospital"),
    ("I work with Tom. He lives in Berlin.", "Tom lives in Berlin"),
])
def test_the_statement_is_of_the_one_person_named(said: str, told: str) -> None:
    held = core_after(said)
    assert told in held
    assert not any(fact.startswith(("She ", "He ")) for fact in held)


@pytest.mark.parametrize("said", [
    "He is great.",
    "My wife and my sister came over. She works at Globex.",  # which one, nothing says
    "My brother called. She works at Globex.",  # no "she" named
])
def test_a_pronoun_naming_no_one_clearly_is_not_stored(said: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, said)[0]
        assert not any(fact.startswith(("She ", "He ")) for fact in core_of(memory))
        assert 'could not tell who "' in reply and "say their name" in reply


def test_a_question_is_left_as_asked() -> None:
    assert with_pronouns_named(["She works where?"], None) == ["She works where?"]
