"""A long message naming many people: the words said right before each name ("at", "I
have", "are") were looked for from the start of the sentence, so each name rescanned all
before it and a 2,000-word message took seconds. Counted as the characters each such
look spans, never timed."""

from __future__ import annotations

import re

import pytest

from tiermem.memory.text import asked_of, people_named, put_as_place, several_before
from tiermem.memory.text.asked_of import with_asks_apart
from tiermem.memory.text.pronoun_subjects import with_pronouns_named

#: Words of the message; the look before each name should span a few of them at most.
_WORDS = 2000
_MOST_SPANNED_PER_LOOK = 64


class _Counted:
    """A compiled pattern that records how many characters each search spans."""

    def __init__(self, pattern: re.Pattern[str], spans: list[int]) -> None:
        self._pattern, self._spans = pattern, spans

    def search(self, text: str, pos: int = 0, endpos: int | None = None
               ) -> re.Match[str] | None:
        end = len(text) if endpos is None else endpos
        self._spans.append(end - pos)
        return self._pattern.search(text, pos, end)


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    spanned: list[int] = []
    for module, names in ((several_before, ("_PLACED", "_SAID_TO_BE")),
                          (people_named, ("PLACED", "IN_PLACE", "_HAVE")),
                          (put_as_place, ("PLACED", "IN_PLACE", "_ALONGSIDE")),
                          (asked_of, ("_PLACED",))):
        for name in names:
            monkeypatch.setattr(module, name, _Counted(getattr(module, name), spanned))
    return spanned


def test_names_of_a_long_sentence_are_each_looked_before_briefly(spans: list[int]) -> None:
    names = " ".join(["Tom Ana,"] * (_WORDS // 2))
    with_pronouns_named([f"{names} and Sam are here.", "They are fine."], None)
    assert (len(spans) > _WORDS // 2, max(spans) <= _MOST_SPANNED_PER_LOOK) == (True, True)


def test_relations_of_a_long_sentence_are_each_looked_before_briefly(
        spans: list[int]) -> None:
    relations = " ".join(["a daughter"] * (_WORDS // 2))
    with_pronouns_named([f"I have a son and {relations}.", "She is fine."], None)
    assert (len(spans) > _WORDS // 2, max(spans) <= _MOST_SPANNED_PER_LOOK) == (True, True)


def test_names_of_a_long_request_are_each_looked_before_briefly(spans: list[int]) -> None:
    names = " ".join(["Tom Ana"] * (_WORDS // 2))
    with_asks_apart([f"Ask Tom, he knows {names} and her."])
    assert (len(spans) > _WORDS // 2, max(spans) <= _MOST_SPANNED_PER_LOOK) == (True, True)
