"""The offline policy's answers: the facts about whom the question asks, and none about
another customer or relative."""

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


def test_a_clause_about_someone_named_before_it_says_who(memory: HierarchicalMemory) -> None:
    _chat(memory, "My wife is Maria and she is allergic to cats.",
          "Initech is on the Pro plan and their SLA is 8 hours.",
          "My sister lives in Berlin and she works at Google.", "My sister moved to Paris.")
    assert list(_core(memory)) == [
        "User's wife is Maria", "User's wife is allergic to cats", "Initech is on the Pro plan",
        "Initech's SLA is 8 hours", "User's sister works at Google", "User's sister moved to Paris"]


def test_a_clause_after_a_name_is_about_whoever_bears_it(memory: HierarchicalMemory) -> None:
    # Read as the name's own, "he" stored "His name works at the Berlin office".
    _chat(memory, "His name is Tom Baker and he works at the Berlin office.",
          "His name is John Reed and his title is CTO.",
          "Her name is Ana and she is a nurse.",
          "My boss's name is Dana and she works at Acme.", "My boss works at Globex now.",
          "My sister's name is Eva and her phone is 555-0199.")
    assert list(_core(memory)) == [
        "His name is Tom Baker", "He works at the Berlin office", "His name is John Reed",
        "His title is CTO", "Her name is Ana", "She is a nurse", "User's boss's name is Dana",
        "User's boss works at Globex", "User's sister's name is Eva",
        "User's sister's phone is 555-0199"]


def test_an_answer_quotes_the_facts_about_whom_the_question_asks(
        memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "My brother Tom lives in Berlin.", "My sister Ana lives in Madrid.",
                    "My parents live in Faro.", "I live in Porto.", "Where do I live?",
                    "Where does Tom live?")
    assert replies[4] == "(offline, quoting memory)\n- From core memory: User lives in Porto"
    assert replies[5] == ("(offline, quoting memory)\n- From core memory: User's brother Tom "
                          "lives in Berlin")


def test_a_move_answers_where_the_user_lives_without_the_relatives(
        memory: HierarchicalMemory) -> None:
    # "User moved to ..." had no subject read, so it did not count as the user's own fact.
    reply = _chat(memory, "My sister Ana lives in Boston.", "I moved to Seattle last year.",
                  "Where do I live?")[-1]
    assert reply == "(offline, quoting memory)\n- From core memory: User moved to Seattle last year"
    # Nor is the user's new address someone of the user's, left out beside the move.
    reply = _chat(memory, "I moved last weekend. My new address is 12 Elm Street, York.",
                  "What is my address?")[-1]
    assert "- From core memory: User's new address is 12 Elm Street, York" in reply.splitlines()


def test_an_answer_about_one_customer_leaves_out_the_others(
        memory: HierarchicalMemory) -> None:
    memory.archival_insert("Initech's SLA is 8 hours")  # as when core evicted it
    replies = _chat(memory, "Acme's SLA is 4 hours.", "Globex's SLA is 2 hours.",
                    "Umbrella's SLA is 1 hour.", "What is Initech's SLA?", "What SLAs do we have?")
    assert replies[3] == "(offline, quoting memory)\n- From archival: Initech's SLA is 8 hours"
    assert "From core memory: Acme's SLA is 4 hours" in replies[4]  # no one named


def test_a_question_about_one_customer_quotes_no_other_customer_s_facts(
        memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "Customer 8812 wants a refund for order 55-A.",
                    "Customer 9034 reported a damaged package on order 77-C.",
                    "Customer 8812 is on the Pro plan.", "What plan is customer 9034 on?",
                    "What plan is customer 8812 on?", "Which customer wanted the refund?")
    assert "8812" not in replies[3]
    assert replies[4] == ("(offline, quoting memory)\n- From core memory: Customer 8812 is on "
                          "the Pro plan")
    assert "Customer 8812 wants a refund for order 55-A" in replies[5]


def test_a_question_naming_an_acronym_quotes_the_customer_it_identifies(
        memory: HierarchicalMemory) -> None:
    # "SSO" read as a name, and "Customer" opening the fact as someone else's: the fact
    # was left out, and a fact sharing only "use" quoted in its place.
    replies = _chat(memory, "The alerts go to Opsgenie, and I don't use PagerDuty.",
                    "Customer 8812 is on the Enterprise plan, and they don't use SSO.",
                    "Does customer 8812 use SSO?")
    assert replies[2] == ("(offline, quoting memory)\n- From core memory: Customer 8812 is on "
                          "the Enterprise plan, and they don't use SSO")


def test_a_question_about_one_customer_quotes_no_other_customer_s_message(
        memory: HierarchicalMemory) -> None:
    # With no message about customer 9034 to rank first, the conversation's message about
    # customer 8812 was quoted in place of the core fact left out.
    reply = _chat(memory, "Customer 8812 is on the Pro plan.", "What plan is customer 9034 on?")[1]
    assert "8812" not in reply


@pytest.mark.parametrize(("fact", "question", "quoted"), [
    ("I have lived in Lisbon since 2019.", "Have I lived in Lisbon since 2020?",
     "User has lived in Lisbon since 2019"),
    ("My passport expires in May 2027.", "Does my passport expire before May 2026?",
     "User's passport expires in May 2027"),
    # A season, a weekday's short name, a day or a week of something: times, no things.
    ("I moved to Lisbon in summer 2019.", "Did I move to Lisbon in summer 2020?",
     "User moved to Lisbon in summer 2019"),
    ("My dentist appointment is on Fri 14 March.", "Is my dentist appointment on Fri 21 March?",
     "User's dentist appointment is on Fri 14 March"),
    ("My rent is due on day 5 of each month.", "Is my rent due on day 1?",
     "User's rent is due on day 5 of each month"),
    ("My lease ends in winter 2026.", "Does my lease end in winter 2025?",
     "User's lease ends in winter 2026"),
    # A value the question checks: the fact with another value is the answer.
    ("My flight leaves from gate 14.", "Does my flight leave from gate 12?",
     "User's flight leaves from gate 14"),
    ("The prod database listens on port 5432.", "Is the prod database on port 5433?",
     "The prod database listens on port 5432"),
    ("We are on version 2 of the API.", "Should we move to version 3 of the API?",
     "We are on version 2 of the API"),
])
def test_a_date_or_a_value_in_the_question_leaves_no_fact_out(
        memory: HierarchicalMemory, fact: str, question: str, quoted: str) -> None:
    reply = _chat(memory, fact, question)[1]
    assert f"- From core memory: {quoted}" in reply
