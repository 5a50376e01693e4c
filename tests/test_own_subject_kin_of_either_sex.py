"""A pronoun after "Alex is my sister" is not Alex when its sex is the other one: a name
given to either sex ("Alex", "Sam", "Jordan") says nothing of it, but the relation does.
Read as Alex, "Alex is my sister and he is a nurse." stored "Alex is a nurse". One that
may be them still is ("Alex is my sister and she is a nurse", "Rex is my dog and he ...")."""

from __future__ import annotations

from offline_helpers import core_after

_KEPT_WHOLE = ("Alex is my sister and he is a nurse.", "Alex is my sister, he is a nurse.",
               "Sam is my brother and she is my colleague.",
               "Jordan is my son and she is my daughter.")
_SPLIT = {"Alex is my sister and she is a nurse.": "Alex is a nurse",
          "Sam is my brother and he is a nurse.": "Sam is a nurse",
          "Alex is my friend and he is a nurse.": "Alex is a nurse",
          "Rex is my dog and he is old.": "Rex is old"}


def test_a_pronoun_of_the_other_sex_than_the_kin_named_is_not_them() -> None:
    for said in _KEPT_WHOLE:
        assert core_after(said) == [said.rstrip(".").replace("my ", "User's ")], said
    for said, theirs in _SPLIT.items():
        assert theirs in core_after(said), said
