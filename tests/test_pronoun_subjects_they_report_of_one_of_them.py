""""They said Tom is out." after "I work with Tom and Ana.": the report was said of the
several right before, "Tom and Ana said Tom is out", Tom telling of himself what others
told. A report of one of those several is kept as said; what was said is the fact."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "report"), [
    ("I work with Tom and Ana.", "They said Tom is out."),
    ("Tom and Ana are on call.", "They told me Ana is sick."),
    ("The servers and the pods are down.", "They said the pods are fine."),
])
def test_a_report_of_one_of_them_is_kept_as_said(said: str, report: str) -> None:
    assert with_pronouns_named([said, report], None) == [said, report]
    assert with_pronouns_named([report], said) == [report]


def test_a_report_of_another_still_names_them() -> None:
    told = with_pronouns_named(["I work with Tom and Ana.", "They said Sam is out."], None)
    assert told[-1] == "Tom and Ana said Sam is out."


def test_core_holds_no_report_by_tom_of_himself() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, "I work with Tom and Ana.", "They said Tom is out.")
        held = list(core_of(memory))
    assert ("They said Tom is out" in held, any(fact.startswith("Tom and Ana said")
                                                 for fact in held)) == (True, False)
