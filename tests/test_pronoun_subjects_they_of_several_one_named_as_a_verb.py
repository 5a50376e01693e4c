""""They" after several, one of them named with a word that is also a verb of the past
("Rose", "Hung", "Won"): "My sister Rose and my kids are visiting." are the sister and
the kids, as "My sister Sam and my kids are visiting." are; read as "my sister rose",
a "they" after it named no one. The verb itself, in lower case, still ends no one of
several ("The server froze and the pods are down.")."""

from __future__ import annotations

import pytest

from tiermem.memory.text.pronoun_subjects import with_pronouns_named
from tiermem.memory.text.several_before import several_before


@pytest.mark.parametrize("name", ["Rose", "Hung", "Won", "Ran", "Sam"])
def test_one_named_as_a_verb_is_one_of_several(name: str) -> None:
    said = f"My sister {name} and my kids are visiting."
    assert several_before(said) == f"My sister {name} and my kids"


def test_they_after_them_is_them() -> None:
    named = with_pronouns_named(
        ["My sister Rose and my kids are visiting.", "They arrive on Friday."], None)
    assert named[1:] == ["My sister Rose and my kids arrive on Friday."]


@pytest.mark.parametrize("said", [
    "The server froze and the pods are down.", "My sister rose and the kids are up.",
])
def test_a_verb_in_lower_case_ends_no_one_of_several(said: str) -> None:
    assert several_before(said) is None
