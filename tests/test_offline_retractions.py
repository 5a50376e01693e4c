"""The offline policy on retractions and withdrawals: what they retire, what they keep, and
what an answer quotes afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import RecordingPolicy
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.agent.loop import Agent
from tiermem.agent.offline_answers import NOTHING_CURRENT
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def test_a_retraction_retires_the_fact_and_is_not_stored(memory: HierarchicalMemory) -> None:
    policy = RecordingPolicy()
    agent = Agent(memory, policy)
    for text in ("I'm allergic to peanuts.", "I'm allergic to shellfish.",
                 "I'm not allergic to peanuts anymore, forget that."):
        agent.step(text)
    assert policy.made[-2:] == [
        ("core_memory_replace", {"old_content": "User is allergic to peanuts", "new_content": "",
                                 "request_heartbeat": True}),
        ("send_message", policy.made[-1][1]),
    ]
    assert _core(memory) == {"User is allergic to shellfish": "durable"}
    reply = agent.step("What am I allergic to?").reply or ""
    assert "shellfish" in reply and "peanut" not in reply


@pytest.mark.parametrize(("said", "retraction"), [
    ("I work at Acme Robotics.", "I no longer work at Acme Robotics."),
    ("I am vegetarian.", "I'm not vegetarian anymore."),
    ("I drive a red Toyota.", "I don't drive a Toyota any more."),
    ("My manager is Priya.", "I no longer work for Priya."),
])
def test_no_longer_and_not_anymore_retire_what_they_deny(
        memory: HierarchicalMemory, said: str, retraction: str) -> None:
    _chat(memory, said, "I prefer window seats.", retraction)
    assert list(_core(memory)) == ["User prefers window seats"]


def test_working_with_the_manager_no_longer_keeps_them_the_manager(
        memory: HierarchicalMemory) -> None:
    _chat(memory, "My manager is Priya.", "I no longer work with Priya on the migration.")
    assert list(_core(memory)) == [
        "User's manager is Priya", "User: I no longer work with Priya on the migration"]


@pytest.mark.parametrize(("said", "retraction", "left"), [
    ("I am vegetarian.", "I'm not vegetarian anymore, I eat fish now.", "User: I eat fish"),
    ("I work at Acme.", "I no longer work at Acme, I work at Globex now.",
     "User works at Globex"),
    ("I'm allergic to peanuts.", "I'm not allergic to peanuts anymore, my doctor checked.",
     "User's doctor checked"),
])
def test_a_retraction_joined_to_another_statement_still_retires_what_it_denies(
        memory: HierarchicalMemory, said: str, retraction: str, left: str) -> None:
    # Read whole, the other statement's words outweighed what the retraction denies: the
    # old fact stayed, beside the sentence stored as a fact that contradicts it.
    _chat(memory, said, retraction)
    assert list(_core(memory)) == [left]
    # One that denies nothing held stays one statement, stored as said.
    _chat(memory, "I can't eat gluten anymore, I found out last week.")
    assert "User: I can't eat gluten anymore, I found out last week" in _core(memory)


def test_a_retraction_of_one_liking_keeps_the_other(memory: HierarchicalMemory) -> None:
    _chat(memory, "I like jazz and hate country music.", "Forget that I like jazz.")
    assert _core(memory) == {"User hates country music": "durable"}


def test_a_retraction_joined_to_a_clause_that_points_back_keeps_its_share(
        memory: HierarchicalMemory) -> None:
    # Cut off as a clause of its own, "my brother does too" was stored as the fact "User's
    # brother does", which says nothing; it is the brother's share of what was withdrawn.
    _chat(memory, "I work at Google.", "I don't work at Google anymore - my brother does too")
    assert list(_core(memory)) == ["User's brother works at Google"]
    assert "brother works at Google" in _chat(memory, "Who works at Google?")[0]


@pytest.mark.parametrize(("said", "retraction", "question", "taken_over"), [
    ("I'm on call this week for the payments cluster.", "I'm not on call anymore, Priya is.",
     "Am I on call?", "Priya is on call"),
    ("I'm the incident commander for the outage.",
     "I'm no longer the incident commander, Marco Rossi is.", "Who is the incident commander?",
     "Marco Rossi is the incident commander"),
    ("I work at Google.", "I don't work at Google anymore, my wife does.",
     "Who works at Google?", "User's wife works at Google"),
])
def test_a_retraction_someone_else_takes_over_retires_the_fact(
        memory: HierarchicalMemory, said: str, retraction: str, question: str,
        taken_over: str) -> None:
    # The name taken over was counted as denied, so too little of the fact was denied:
    # it stayed current, quoted beside the retraction stored as a fact. The one who took
    # it over holds it now.
    reply = _chat(memory, said, retraction, question)[-1]
    assert list(_core(memory)) == [taken_over]
    assert reply.splitlines()[1:] == [f"- From core memory: {taken_over}"]


def test_a_question_about_who_is_on_call_quotes_no_request_for_a_call(
        memory: HierarchicalMemory) -> None:
    # "on call" and "Call me" shared the concept "call": the request was quoted as evidence.
    replies = _chat(memory, "Call me if sev1 fires.", "Priya is on-call this week.",
                    "Who is on call?", "Is Marco on call?")
    assert replies[2] == ("(offline, quoting memory)\n- From core memory: Priya is on-call "
                          "this week")
    assert "sev1" not in replies[3]


@pytest.mark.parametrize(("said", "withdrawal", "question"), [
    ("I work at Acme Robotics.", "I no longer work at Acme Robotics.", "Where do I work?"),
    ("I'm allergic to peanuts.", "I'm no longer allergic to peanuts.",
     "Am I allergic to peanuts?"),
    ("I eat meat.", "I stopped eating meat.", "Do I eat meat?"),
])
def test_a_question_about_a_withdrawn_fact_quotes_the_withdrawal_not_the_fact(
        memory: HierarchicalMemory, said: str, withdrawal: str, question: str) -> None:
    reply = _chat(memory, said, withdrawal, question)[-1]
    [(first, quote)] = [line.split("): ", 1) for line in reply.splitlines()[1:]]
    assert reply.startswith("(offline, quoting memory)\n")
    assert first.startswith("- From our conversation (") and quote == withdrawal



def test_a_question_about_the_withdrawn_part_of_a_fact_quotes_the_withdrawal_too(
        memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "I'm allergic to peanuts and shellfish.",
                    "I'm not allergic to shellfish anymore.", "Am I allergic to shellfish?",
                    "Am I allergic to peanuts?", "I'm allergic to shellfish again.",
                    "Am I allergic to shellfish?")
    lines = [line.split("): ", 1)[-1] for line in replies[2].splitlines()[1:]]
    assert lines == ["- From core memory: User is allergic to peanuts",
                     "I'm not allergic to shellfish anymore."]
    # What the other part answers whole, and a fact stated since, quote no withdrawal.
    assert "shellfish" not in replies[3]
    assert "anymore" not in replies[5] and "shellfish" in replies[5]

def test_a_withdrawal_of_something_else_answers_nothing_current(
        memory: HierarchicalMemory) -> None:
    reply = _chat(memory, "I'm allergic to peanuts.", "I'm no longer allergic to peanuts.",
                  "Am I allergic to shellfish?")[-1]
    assert reply == NOTHING_CURRENT


def test_a_withdrawal_of_a_fact_core_evicted_is_what_the_answer_quotes() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=12) as memory:
        replies = _chat(memory, "I'm vegetarian.", "I live in Lisbon.", "My bus is late.",
                        "My email is d@x.io.", "My name is Dana.", "I'm no longer vegetarian.",
                        "Am I vegetarian?")
        assert "User is vegetarian" not in _core(memory)  # evicted before the withdrawal
        assert replies[-1] == ("(offline, quoting memory)\n- From core memory: User is no "
                               "longer vegetarian")


@pytest.mark.parametrize(("said", "withdrawn", "left"), [
    ("I'm allergic to peanuts and shellfish.", "I'm not allergic to shellfish anymore.",
     ["User is allergic to peanuts"]),
    ("I'm allergic to peanuts, shellfish and eggs.", "I'm no longer allergic to peanuts.",
     ["User is allergic to shellfish and eggs"]),
    ("I like green tea and black coffee.", "I no longer like green tea.",
     ["User likes black coffee"]),
    ("I'm allergic to peanuts and shellfish.",
     "I'm not allergic to peanuts or shellfish anymore.", []),
    # No list of items: the fact goes whole rather than in mangled pieces.
    ("I'm allergic to peanuts, which is serious, and to shellfish.",
     "I'm not allergic to shellfish anymore.", []),
])
def test_withdrawing_items_of_a_list_keeps_the_others(
        memory: HierarchicalMemory, said: str, withdrawn: str, left: list[str]) -> None:
    _chat(memory, said)
    [kind] = _core(memory).values()
    _chat(memory, withdrawn)
    assert _core(memory) == dict.fromkeys(left, kind)  # as long-lived as the list was
