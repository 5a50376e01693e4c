"""Someone of the user's there is one of at a time, named beside one not named ("User's
wife Ana" after "User's wife"), is the same person: her new job ends the one held, as it
would said without her name. Of one the user may have several ("my brother Tom"), a name
may say another one, and both stay."""

from __future__ import annotations

from offline_helpers import core_after

from tiermem.memory.text.owners import may_be_same_kin


def test_the_named_wife_changes_the_job_of_the_wife() -> None:
    assert core_after("My wife works at Globex.", "My wife Ana works at Acme.") == [
        "User's wife Ana works at Acme"]
    assert core_after("My wife Ana works at Globex.", "My wife works at Acme now.") == [
        "User's wife Ana works at Acme"]


def test_a_named_brother_may_be_another_brother() -> None:
    assert sorted(core_after("My brother works at Globex.", "My brother Tom works at Acme.")) == [
        "User's brother Tom works at Acme", "User's brother works at Globex"]


def test_words_besides_the_name_still_tell_two_apart() -> None:
    assert may_be_same_kin("User's wife Ana works at Acme", "User's wife works at Globex")
    assert not may_be_same_kin("User's wife Ana works at Acme", "User's ex-wife works at Globex")
    assert not may_be_same_kin("User's wife Ana works at Acme", "User's wife Eva works at Globex")
