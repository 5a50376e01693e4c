""""She and Tom moved to Porto." after "Tom works at Globex.": "she" is not Tom, whom the
sentence names beside her. Read as Tom, "Tom and Tom moved to Porto" was stored, and "He
said Tom no longer works at Globex" retired Tom's job."""

from __future__ import annotations

from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


def test_the_one_named_beside_is_not_the_pronoun() -> None:
    assert core_after("Tom works at Globex.", "She and Tom moved to Porto.") == [
        "Tom moved to Porto", "Tom works at Globex"]


def test_a_hearsay_retraction_of_the_one_beside_retires_nothing() -> None:
    """Read as Tom, "he" made it "Tom said Tom no longer works at Globex", which
    retired Tom's job on what someone else said."""
    assert with_pronouns_named(["He said Tom no longer works at Globex."],
                               "Tom works at Globex.") == []
    assert core_after("Tom works at Globex.", "He said Tom no longer works at Globex.") == [
        "Tom works at Globex"]
