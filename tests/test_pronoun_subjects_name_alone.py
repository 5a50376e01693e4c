""""Tom? He works at Globex.": a first name said alone, asked or called out, names that
person for the "he" after it. Read as no one, what he does was not stored."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "kept"), [
    (["Tom? He works at Globex."], "Tom works at Globex"),
    (["Tom?", "He works at Globex."], "Tom works at Globex"),
    (["Ana! She got the job at Globex."], "Ana got the job at Globex"),
])
def test_the_name_said_alone_is_the_pronoun(said: list[str], kept: str) -> None:
    assert kept in core_after(*said)


def test_a_word_said_alone_that_is_no_first_name_is_no_one() -> None:
    assert with_pronouns_named(["Berlin?", "He works at Globex."], None) == ["Berlin?"]
