"""A statement that goes on about someone else by a pronoun of the other sex ("Tom is my
brother and she is my colleague", "He is a lawyer and she is a doctor") is two: the
"she" is the one woman named before, not the subject the part before is of. Kept whole,
it was one fact saying of Tom (or of the brother) what "she" is, and her fact was lost;
with no woman known it is still kept as said."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import unnamed_pronouns, with_pronouns_named


@pytest.mark.parametrize(("said", "after"), [
    (["Ana is my sister.", "Tom is my brother and she is my colleague."],
     ["Ana is User's colleague", "Ana is User's sister", "Tom is User's brother"]),
    (["Ana is my sister. Tom is my brother.", "He is a lawyer and she is a doctor."],
     ["Ana is User's sister", "Tom is User's brother", "User's brother is a lawyer",
      "User's sister is a doctor"]),
    (["Ana is my sister.", "Tom is my brother, and she works at Acme."],
     ["Ana is User's sister", "Tom is User's brother", "User's sister works at Acme"]),
    # a name of either sex is of the sex its relation says
    (["Tom is my brother.", "Alex is my sister and he is a nurse."],
     ["Alex is User's sister", "Tom is User's brother", "User's brother is a nurse"]),
    (["Ana is my wife.", "Sam is my brother and she is my colleague."],
     ["Ana is User's colleague", "Ana is User's wife", "Sam is User's brother"]),
])
def test_the_part_of_the_other_sex_is_told_of_the_one_it_names(
        said: list[str], after: list[str]) -> None:
    assert core_after(*said) == after


@pytest.mark.parametrize(("sentences", "said_last", "told"), [
    # no woman known: kept as said, nothing asked
    (["Tom is my brother and she is my colleague."], None,
     ["Tom is my brother and she is my colleague."]),
    # the same sex: left to the clause reader, as before
    (["Tom is my brother and he is a lawyer."], "Ana is my sister.",
     ["Tom is my brother and he is a lawyer."]),
    # a sex nothing says: may be Sam
    (["Sam is my friend and she is a lawyer."], "Ana is my sister.",
     ["Sam is my friend and she is a lawyer."]),
    # both read as the one person named, whose sex nothing says: no two apart
    (["She lives in Lisbon and he lives in Porto."], "I met Keiko.",
     ["Keiko lives in Lisbon and he lives in Porto."]),
    # leaning on the one before: "him", "too"
    (["Tom is my brother and she likes him."], "Ana is my sister.",
     ["Tom is my brother and she likes him."]),
    (["Tom is a nurse and she is too."], "Ana is my sister.",
     ["Tom is a nurse and she is too."]),
])
def test_a_part_of_no_one_else_clear_stays_whole(
        sentences: list[str], said_last: str | None, told: list[str]) -> None:
    assert (with_pronouns_named(sentences, said_last),
            unnamed_pronouns(sentences, said_last)) == (told, [])
