"""Someone named beside whose they are ("User's boss Ana", "Anna's husband Tom") is the
one a later fact names: a new boss named retires the old boss's fact, and a job said of
the name alone moves the one held, keeping whose they are."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.appositions import apposition
from tiermem.memory.text.updates import replaces


def test_a_new_boss_named_retires_the_old_bosss_fact_but_not_her_job() -> None:
    assert core_after("My boss Ana works at Acme.", "My boss is Tom now.") == [
        "Ana works at Acme", "User's boss is Tom"]


def test_a_new_boss_named_keeps_the_job_of_each_boss_held() -> None:
    assert core_after("My boss Ana works at Acme.", "My boss is Ana.",
                      "My boss is Tom now.") == [
        "Ana works at Acme", "User's boss is Tom"]


def test_a_new_boss_named_retires_the_old_boss_named_in_two_words() -> None:
    # "Ana Lima" was no name beside whose: both bosses stayed current
    assert core_after("My boss Ana Lima works at Acme.", "My boss is Tom.") == [
        "Ana Lima works at Acme", "User's boss is Tom"]
    assert core_after("Anna's husband Tom Silva works at Globex.",
                      "Tom Silva works at Initech now.") == [
        "Anna's husband Tom Silva works at Initech"]


@pytest.mark.parametrize(("first", "then", "now"), [
    ("Anna's husband Tom works at Globex.", "Tom works at Initech now.",
     ["Anna's husband Tom works at Initech"]),
    ("My brother Tom works at Acme.", "Tom works at Initech now.",
     ["User's brother Tom works at Initech"]),
    ("Tom works at Globex.", "Anna's husband Tom works at Initech now.",
     ["Anna's husband Tom works at Initech"]),
])
def test_a_job_said_of_the_name_alone_moves_the_one_held(
        first: str, then: str, now: list[str]) -> None:
    assert core_after(first, then) == now


@pytest.mark.parametrize(("first", "then"), [
    # one may have several brothers: Sam is one more
    ("My brother Tom works at Acme.", "My brother is Sam."),
    # the same boss named again
    ("My boss Ana works at Acme.", "My boss is Ana."),
    # another one's job
    ("Anna's husband Tom works at Globex.", "Sam works at Initech now."),
])
def test_what_names_no_one_anew_keeps_the_fact(first: str, then: str) -> None:
    assert len(core_after(first, then)) == 2


def test_the_same_name_of_another_relation_is_left_alone() -> None:
    assert not replaces("User's sister is Tom", "User's boss Ana works at Acme", "now")


@pytest.mark.parametrize(("first", "then", "now"), [
    ("My wife Ana works at Acme.", "My wife is Eva.", ["Ana works at Acme", "User's wife is Eva"]),
    ("My mom Ana lives in Porto.", "My mom is Eva now.",
     ["Ana lives in Porto", "User's mom is Eva"]),
])
def test_kin_named_anew_is_not_given_the_name_held(
        first: str, then: str, now: list[str]) -> None:
    assert core_after(first, then) == now


@pytest.mark.parametrize("fact", [
    "User's wife and User live in Porto", "User's wife and Tom live in Porto",
    "Tom's sister or Ana works at Acme"])
def test_a_joint_subject_is_no_one_named_beside_whose(fact: str) -> None:
    assert apposition(fact) is None


@pytest.mark.parametrize(("first", "then", "now"), [
    ("My wife and I live in Porto.", "I live in Lisbon now.",
     ["User lives in Lisbon", "User's wife lives in Porto"]),
    ("My wife and Tom live in Porto.", "Tom lives in Lisbon now.",
     ["Tom lives in Lisbon", "User's wife lives in Porto"]),
])
def test_a_move_of_one_of_a_joint_subject_is_not_told_of_the_other(
        first: str, then: str, now: list[str]) -> None:
    assert core_after(first, then) == now
