"""The offline policy on "Scratch that, she's a doctor" and "Ignore that.": a bare request to take
back the last fact, and what another person is instead said after it in one sentence."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, reply_and_core

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize(("said", "kept"), [
    (["My wife is a nurse. Scratch that, she's a doctor."], ["User's wife is a doctor"]),
    (["My wife is a nurse.", "Scratch that, she's a doctor."], ["User's wife is a doctor"]),
    (["My wife is a nurse. Forget that, she's a doctor."], ["User's wife is a doctor"]),
    (["My wife is a nurse. Disregard that, she is a doctor."], ["User's wife is a doctor"]),
    (["My sister lives in Berlin. Scratch that - she lives in Munich."],
     ["User's sister lives in Munich"]),
    (["I love jazz. Scratch that, Sam loves jazz."], ["Sam loves jazz"]),
    (["My wife is a nurse. Scratch that, she's a doctor and she lives in Porto."],
     ["User's wife is a doctor", "User's wife lives in Porto"]),
])
def test_the_fact_taken_back_goes_and_the_one_said_after_it_stays(said: list[str],
                                                                  kept: list[str]) -> None:
    assert core_after(*said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # "Forget about it, ..." brushes off, and a clause of the speaker's own is read as ever
    (["My wife is a nurse. Forget about it, she's a doctor."], ["User's wife is a nurse"]),
    (["I'm vegan. Forget that, I'm vegetarian now."], ["User is vegetarian"]),
    (["The meeting is on Friday. Scratch that, it's on Monday."], ["The meeting is on Monday"]),
    (["I like tea. Forget that, thanks."], ["User likes tea"]),
])
def test_what_is_no_other_persons_state_is_read_as_before(said: list[str],
                                                         kept: list[str]) -> None:
    assert core_after(*said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # a remark on why, or a word that names no one, is read whole, as before
    (["I like tea. Forget that, Anna said so."], ["User likes tea"]),
    (["My wife is a nurse. Scratch that, she said so."],
     ["Scratch that, she said so", "User's wife is a nurse"]),
    (["I like tea. Scratch that, Tea is overrated."],
     ["Scratch that, Tea is overrated", "User likes tea"]),
    (["I work at Acme. Strike that, Google is hiring."],
     ["Strike that, Google is hiring", "User works at Acme"]),
    # a name no list knows is someone when a fact held says whose
    (["My boss is Zed.", "I like tea. Scratch that, Zed likes tea."],
     ["User's boss is Zed", "Zed likes tea"]),
    (["Zed is my boss.", "Zed works at Globex. Scratch that, Zed works at Initech."],
     ["Zed is User's boss", "Zed works at Initech"]),
])
def test_only_what_a_person_is_or_does_is_read_apart(said: list[str], kept: list[str]) -> None:
    assert core_after(*said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    (["I like tea. Ignore that."], []),
    (["I live in Lisbon.", "I like tea.", "Ok, ignore that."], ["User lives in Lisbon"]),
    (["I like tea.", "Ignore that, I like coffee."], ["User likes coffee"]),
    (["My flight is at 9. Ignore that, it's at 10."], ["User's flight is at 10"]),
    # what "ignore that" names is a task, not what was said
    (["I like tea. Ignore that email from HR."], ["Ignore that email from HR", "User likes tea"]),
])
def test_ignore_that_takes_back_the_last_fact_as_forget_that_does(said: list[str],
                                                                  kept: list[str]) -> None:
    assert core_after(*said) == kept


@pytest.mark.parametrize(("said", "who", "went"), [
    ("My dog is called Rex. Scratch that, he's called Max.", '"He" is', "My dog is called Rex"),
    ("My wife is a nurse. Scratch that, he's a doctor.", '"He" is', "My wife is a nurse"),
    ("My sister lives in Berlin. Scratch that, they live in Munich.", '"They" are',
     "My sister lives in Berlin"),
])
def test_a_pronoun_after_the_request_naming_no_one_is_said_so(said: str, who: str,
                                                              went: str) -> None:
    # as "Scratch that. He's called Max." says, and what went is not left unmentioned
    assert reply_and_core(said) == (
        f'(offline) You asked me to forget "{went}" in the same message, so nothing was '
        f"stored.\n(offline) I could not tell who {who}, so I did not store what you said of "
        "them; say their name.", [])
    assert reply_and_core("Scratch that, she's a doctor.") == (
        '(offline) I could not tell who "She" is, so nothing changed; say their name.', [])


@pytest.mark.parametrize(("said", "kept"), [
    (["My wife is a nurse. Forget it. It was a joke."], []),
    (["My wife is a nurse. Scratch that. Just kidding."], []),
    (["I like tea. Forget that. I was kidding."], []),
    (["I live in Lisbon.", "My wife is a nurse.", "Forget it. It was a typo."],
     ["User lives in Lisbon"]),
    # said with no request before it, it is kept as said
    (["My wife is a nurse. It was a joke."], ["It was a joke", "User's wife is a nurse"]),
])
def test_why_the_fact_taken_back_was_said_is_no_fact(said: list[str], kept: list[str]) -> None:
    assert core_after(*said) == kept


@pytest.mark.parametrize(("said", "forgot"), [
    ("I like tea. Ignore that, it's fine.", "I like tea"),
    ("The build is failing. Ignore that, it's flaky.", "The build is failing"),
    ("I like tea. Forget that, it's fine.", "I like tea"),
])
def test_the_reply_names_what_a_request_with_more_after_it_took_back(said: str,
                                                                    forgot: str) -> None:
    # as "I like tea. Ignore that." says; not the bare offline reply, nor "nothing matched"
    assert reply_and_core(said) == (
        f'(offline) You asked me to forget "{forgot}" in the same message, so nothing was '
        "stored.", [])


@pytest.mark.parametrize(("said", "who"), [
    ("Tom is tall. Strike that, She's a doctor.", "She"),
    ("Tom is tall. Scratch that - she lives in Munich.", "She"),
    ("Tom is tall. Scratch that. She's a doctor.", "She"),
    ("Ana is tall. Scratch that, he's a doctor.", "He"),
    # a name most often a man's is no "she", though she says again what went of him
    ("Tom is a nurse. Strike that, she's a doctor.", "She"),
    ("Ana lives in Rome. Scratch that, he lives in Milan.", "He"),
    ("Tom is tall. Scratch that, he's not.", "He"),
    ("Tom is tall. Scratch that. He's not.", "He"),
])
def test_a_pronoun_after_a_name_whose_fact_went_names_no_one(said: str, who: str) -> None:
    # a name says no sex: the "she" may be anyone but Tom, and "Tom is a doctor" was stored
    first = said.split(".")[0]
    assert reply_and_core(said) == (
        f'(offline) You asked me to forget "{first}" in the same message, so nothing was '
        f'stored.\n(offline) I could not tell who "{who}" is, so I did not store what you '
        "said of them; say their name.", [])


def test_a_pronoun_in_the_next_message_after_a_name_names_no_one() -> None:
    assert core_after("Tom is tall.", "Scratch that, she's a doctor.") == []
    assert core_after("Tom works at Globex.", "Scratch that, he lives in Munich.") == []
    assert core_after("Tom is tall. Scratch that, she's Ana.") == []
    assert core_after("Tom is tall. Scratch that, she's my sister.") == []
    assert core_after("Tom likes tea. Scratch that, she likes him.") == []


@pytest.mark.parametrize(("said", "kept"), [
    (["Tom works at Globex. Scratch that, he works at Initech."], ["Tom works at Initech"]),
    (["Tom works at Globex.", "Scratch that, he works at Initech."], ["Tom works at Initech"]),
    (["Sam is a nurse. Strike that, she's a doctor."], ["Sam is a doctor"]),
    (["Tom is a nurse. Scratch that. He is an engineer."], ["Tom is an engineer"]),
    (["Ana lives in Rome.", "Ignore that, she lives in Milan."], ["Ana lives in Milan"]),
    (["Tom likes tea. Scratch that, he likes coffee."], ["Tom likes coffee"]),
    (["Tom is tall. Scratch that, he's short."], ["Tom is short"]),
])
def test_a_pronoun_saying_again_what_the_fact_taken_back_said_is_that_name(
        said: list[str], kept: list[str]) -> None:
    # "works at" after "works at": whoever else "he" could be, the user corrects Tom's job
    assert core_after(*said) == kept


@pytest.mark.parametrize(("said", "went"), [
    (["I like tea.", "Ignore that, it's fine."], "User likes tea"),
    (["I like tea.", "Scratch that, it's fine."], "User likes tea"),
    (["My PIN is 1234.", "Ignore that, it's 5678."], "User's PIN is 1234"),
])
def test_a_request_in_the_next_message_tells_of_the_copy_kept(said: list[str],
                                                              went: str) -> None:
    # as "Forget that, it's fine." tells; the note was missing for "Ignore that, ..."
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, *said)[-1]
    assert (f'(offline) I keep "{went}" in archival as a past fact; to remove it for good: '
            f"/forget {went} in the chat, or tiermem forget.") in reply


@pytest.mark.parametrize(("said", "kept"), [
    (["Ana is my sister. Scratch that. She is my cousin."], ["Ana is User's cousin"]),
    (["Ana is my sister. Scratch that, she is my cousin."], ["Ana is User's cousin"]),
    (["Ana is my sister.", "Scratch that, she is my cousin."], ["Ana is User's cousin"]),
    (["Tom is my brother. Scratch that, he's my friend."], ["Tom is User's friend"]),
    (["Ana is my sister. Scratch that, she lives in Rome."], ["Ana lives in Rome"]),
    # the relation said first is who she is, as before
    (["My sister is Ana. Scratch that, she is Maria."], ["User's sister is Maria"]),
])
def test_a_name_whose_relation_was_taken_back_is_still_the_one_named(
        said: list[str], kept: list[str]) -> None:
    assert core_after(*said) == kept
