"""A fact told and forgotten in one message ("I like tea. Forget that.") stores nothing,
and the reply names what was forgotten: it said that nothing in core matched, as if the
request had been for something held."""

from __future__ import annotations

import pytest
from offline_helpers import chat, reply_and_core

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize(("said", "forgotten"), [
    ("I like tea. Forget that.", "I like tea"),
    ("I like tea. Scratch that.", "I like tea"),
    ("I'm vegan. Actually, forget that.", "I'm vegan"),
])
def test_the_reply_names_what_was_forgotten_at_once(said: str, forgotten: str) -> None:
    assert reply_and_core(said) == (
        f'(offline) You asked me to forget "{forgotten}" in the same message, so nothing '
        "was stored.", [])


def test_a_second_forget_that_is_said_to_forget_nothing() -> None:
    reply, core = reply_and_core("I like tea. Forget that. Forget that.")
    assert core == []
    assert reply.splitlines() == [
        '(offline) You asked me to forget "I like tea" in the same message, so nothing was '
        "stored.",
        '(offline) "Forget that." found nothing more to take back, so it forgot nothing.']


def test_a_move_forgotten_at_once_leaves_the_place_held() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "I live in Lisbon.", "I moved to Porto. Forget that.")[-1]
        assert [fact.text for fact in memory.core] == ["User lives in Lisbon"]
    assert reply == ('(offline) You asked me to forget "I moved to Porto" in the same '
                     "message, so nothing was stored.")


def test_a_forget_that_with_nothing_told_still_matches_nothing() -> None:
    assert reply_and_core("Forget that.") == (
        "(offline) Nothing in core memory matched that, so nothing changed.", [])


@pytest.mark.parametrize(("said", "reply"), [
    # the request opening a sentence is no part of what it goes on to tell
    ("I like tea. Scratch that, I like coffee. Forget that.",
     '(offline) You asked me to forget "I like tea" and "I like coffee" in the same message, '
     "so nothing was stored."),
    ("I like tea. Forget that, I'm vegan. Forget that.",
     '(offline) You asked me to forget "I like tea" and "I\'m vegan" in the same message, '
     "so nothing was stored."),
    # no stop of the sentence is quoted with what was forgotten
    ("I like tea; forget that.",
     '(offline) You asked me to forget "I like tea" in the same message, so nothing was '
     "stored."),
])
def test_what_a_request_in_a_sentence_forgot_is_named_alone(said: str, reply: str) -> None:
    assert reply_and_core(said) == (reply, [])


@pytest.mark.parametrize(("told", "asked", "kept"), [
    ("I like tea.", "Forget that. Forget that.", []),
    ("I like tea.", "Forget that. Scratch that.", []),
    ("I live in Lisbon.\nI moved to Porto.", "Forget that. Forget that.", ["User lives in Lisbon"]),
])
def test_a_second_forget_that_after_the_last_message_is_said_to_forget_nothing(
        told: str, asked: str, kept: list[str]) -> None:
    """The first takes back the last message; the reply said nothing of the second."""
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, *told.split("\n"), asked)[-1]
        assert [fact.text for fact in memory.core] == kept
    second = asked.split(". ")[1]
    assert reply.splitlines()[-1] == (f'(offline) "{second}" found nothing more to take '
                                      "back, so it forgot nothing.")


def test_a_second_forget_that_beside_a_fact_stored_is_said_to_forget_nothing() -> None:
    reply, core = reply_and_core("I like tea. I live in Lisbon. Forget that. Forget that.")
    assert core == ["User likes tea"]
    assert reply.splitlines()[-1] == ('(offline) "Forget that." found nothing more to take '
                                      "back, so it forgot nothing.")


def test_a_share_told_in_full_and_forgotten_at_once_is_named() -> None:
    """"My son is too" after "I'm allergic to peanuts" tells a fact of its own: forgotten
    at once, it is named, where the reply said that nothing in core matched."""
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "I'm allergic to peanuts.", "My son is too. Forget that.")[-1]
        assert [fact.text for fact in memory.core] == ["User is allergic to peanuts"]
    assert reply == ('(offline) You asked me to forget "My son is allergic to peanuts" in '
                     "the same message, so nothing was stored.")


def test_a_second_forget_that_after_one_that_forgot_none_forgot_none_either() -> None:
    """The first forgot none of the last message's facts: the second found no "more"."""
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "I like tea and I live in Lisbon.", "Forget that. Forget that.")[-1]
        assert sorted(fact.text for fact in memory.core) == ["User likes tea",
                                                             "User lives in Lisbon"]
    assert reply.splitlines() == [
        "(offline) Your last message told me 2 facts (User likes tea; User lives in Lisbon), "
        'so I forgot none; say which one to forget: "Forget that ...".',
        '(offline) "Forget that." said again forgot none either.']


@pytest.mark.parametrize("said", [
    "Ana is my sister and Tom is my brother. Scratch that.",
    "My PIN is 1234 and my code is 99. Forget that.",
])
def test_a_sentence_of_several_facts_is_taken_back_whole(said: str) -> None:
    # both were kept and the reply said "Noted.", the request lost
    assert reply_and_core(said) == (
        f'(offline) You asked me to forget "{said.split(". ")[0]}" in the same message, so '
        "nothing was stored.", [])


def test_a_pronoun_after_several_taken_back_is_the_name_of_its_relation() -> None:
    said = "Ana is my sister and Tom is my brother. Scratch that, she is my cousin."
    assert reply_and_core(said)[1] == ["Ana is User's cousin"]
