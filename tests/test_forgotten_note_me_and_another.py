"""A subject of several naming the user first ("Me and Tom") takes the user in only for
the verb that follows it: "Me and Tom know he uses vim." says Tom's "he" uses it, and a
note naming "User uses vim" beside it would tell a fact the message never said."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

VIM = "User uses vim"


@pytest.mark.parametrize(("said", "fact"), [
    ("Me and Tom know he uses vim.", VIM),
    ("Me and Anna think she uses vim.", VIM),
    ("Me and Tom know you use vim.", VIM),
    ("Me and my son think he uses vim.", VIM),
    ("Me and Tom said he lives in Berlin.", "User lives in Berlin"),
])
def test_another_after_the_subject_of_several_is_no_statement_of_the_users(
        said: str, fact: str) -> None:
    assert not says(said, fact)


@pytest.mark.parametrize(("said", "fact"), [
    ("Me and Anna both use vim.", VIM),
    ("Me and my team all use vim.", VIM),
    ("Me and my team still use vim.", VIM),
    ("Me and my older sister live in Berlin.", "User lives in Berlin"),
])
def test_the_verb_after_the_subject_of_several_is_the_users_too(said: str, fact: str) -> None:
    assert says(said, fact)
