"""The offline policy on the user's name: "call me", introductions after a greeting, names
stated beside other names, and languages spoken."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("update", ["Call me Sammy", "Please call me Sammy.", "My name is Sammy."])
def test_call_me_replaces_the_name_as_my_name_is_does(memory: HierarchicalMemory,
                                                       update: str) -> None:
    answer = _chat(memory, "My name is Samantha.", update, "What is my name?")[-1]
    assert _core(memory) == {"User's name is Sammy": "durable"}
    assert answer == "(offline, quoting memory)\n- From core memory: User's name is Sammy"


def test_asking_for_a_call_stores_nothing_and_leaves_the_name(memory: HierarchicalMemory
                                                              ) -> None:
    _chat(memory, "Call me Sammy", "Call me back later.", "Call me back", "Call me Mom.")
    assert _core(memory) == {"User's name is Sammy": "durable"}


@pytest.mark.parametrize("said", ["Hi! I'm Maya", "Hello, I'm Maya.", "Hey there, I'm Maya"])
def test_an_introduction_is_the_user_s_name_and_answered(memory: HierarchicalMemory,
                                                         said: str) -> None:
    answer = _chat(memory, said, "What's my name?")[-1]
    assert _core(memory) == {"User's name is Maya": "durable"}
    assert answer == "(offline, quoting memory)\n- From core memory: User's name is Maya"


@pytest.mark.parametrize(("said", "name", "affiliation"), [
    ("Hi, I'm Sam from the platform team", "Sam", "from the platform team"),
    ("Hello! I'm Sam Lee from Boston.", "Sam Lee", "from Boston"),
    ("Hey, I'm Sam on the payments team", "Sam", "on the payments team"),
])
def test_an_introduction_saying_where_the_user_is_from_names_the_user_and_keeps_that(
        memory: HierarchicalMemory, said: str, name: str, affiliation: str) -> None:
    answer = _chat(memory, said, "What's my name?")[-1]
    assert list(_core(memory)) == [f"User's name is {name}", f"User is {affiliation}"]
    assert f"User's name is {name}" in answer


def test_being_back_from_somewhere_is_no_introduction(memory: HierarchicalMemory) -> None:
    _chat(memory, "Hi, I'm back from vacation.")
    assert list(_core(memory)) == ["User is back from vacation"]


@pytest.mark.parametrize("said", ["Hi, I'm Nervous.", "Hi! I'm Late", "Hello, I'm Anxious.",
                                  "Hey, I'm Engaged", "Hi, I'm Sober", "Hi. I'm Early",
                                  "Hi, I'm Ana"])
@pytest.mark.parametrize("apart", [True, False])
def test_a_greeting_changes_no_name_the_user_gave(memory: HierarchicalMemory, said: str,
                                                  apart: bool) -> None:
    # "I'm X" after a greeting may say what the user is as well as who: read as it was
    # before introductions named anyone, it is short-lived and retires nothing.
    messages = ("My name is Maya.", said) if apart else (f"My name is Maya. {said}",)
    answer = _chat(memory, *messages, "What's my name?")[-1]
    word = said.rstrip(".!").split("I'm ")[1]
    assert _core(memory) == {"User's name is Maya": "durable", f"User is {word}": "short-lived"}
    assert answer == "(offline, quoting memory)\n- From core memory: User's name is Maya"


@pytest.mark.parametrize(("first", "then", "name"), [
    ("Hi! I'm Maya", "Hi! I'm Maya", "Maya"),  # the same name: re-asserted
    ("My name is Maya.", "My name is Ana.", "Ana"), ("My name is Maya.", "Call me Liz", "Liz"),
    ("Hi! I'm Maya", "My name is Ana.", "Ana"),
])
def test_only_the_same_name_or_an_explicit_one_is_stored_beside_a_name(
        memory: HierarchicalMemory, first: str, then: str, name: str) -> None:
    _chat(memory, first, then)
    assert _core(memory) == {f"User's name is {name}": "durable"}


def test_a_value_given_of_him_or_her_changes_no_other_person_s(
        memory: HierarchicalMemory) -> None:
    # "His" and "her" stand for whoever the sentences before named: two people, two values.
    _chat(memory, "My boss is strict. His name is Bob.", "My neighbour is nice. Her name is Eva.",
          "His job is plumber.", "Her job is nurse.", "He works at Acme.", "He works at Globex.",
          "My job is teacher.", "My job is actually engineer.")
    assert list(_core(memory)) == [
        "User's boss is strict", "His name is Bob", "User's neighbour is nice", "Her name is Eva",
        "His job is plumber", "Her job is nurse", "User's job is engineer"]
    # "He works at ..." after "Her job is nurse." names no one clearly: it is left out
    [superseded] = [f.text for f in memory.facts() if f.tier == "archival"]
    assert superseded == "User's job is teacher"


def test_an_introduction_stored_by_an_earlier_version_is_not_stored_twice(
        memory: HierarchicalMemory) -> None:
    memory.add_fact("User is Maya", "short-lived")
    _chat(memory, "Hi! I'm Maya")
    assert list(_core(memory)) == ["User is Maya"]


def test_a_language_spoken_is_kept_as_the_user_s_and_answered(memory: HierarchicalMemory
                                                               ) -> None:
    answer = _chat(memory, "I speak Hebrew.", "Which languages do I speak?")[-1]
    assert _core(memory) == {"User speaks Hebrew": "durable"}
    assert answer == "(offline, quoting memory)\n- From core memory: User speaks Hebrew"


def test_a_language_fact_stored_quoted_by_an_earlier_version_is_not_stored_twice(
        memory: HierarchicalMemory) -> None:
    memory.add_fact("User: I speak Hebrew", "short-lived")
    _chat(memory, "I speak Hebrew.")
    assert list(_core(memory)) == ["User: I speak Hebrew"]
