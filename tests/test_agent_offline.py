"""The offline policy driving the memory tools through the real agent loop."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import RecordingPolicy

from tiermem.agent.llm import LLMClient
from tiermem.agent.loop import Agent
from tiermem.agent.offline import REMINDER_NOTE, OfflinePolicy
from tiermem.agent.offline_answers import MAX_LISTED, NOTHING_ABOUT_YOU, NOTHING_FOUND
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def test_is_an_llm_client_and_says_what_it_is() -> None:
    policy = OfflinePolicy()
    assert isinstance(policy, LLMClient)
    assert "offline" in policy.name and "no language model" in policy.name


def test_call_ids_differ_from_one_session_to_the_next(memory: HierarchicalMemory) -> None:
    # A model the agent is later switched to reads the whole history, ids and all.
    for text in ("I like tea.", "I like jazz."):
        Agent(memory, OfflinePolicy()).step(text)
    rows = memory.recall.rows(range(1, len(memory.recall) + 1))
    called = [c["id"] for r in rows for c in r["tool_calls"] or []]
    assert len(called) >= 4 and len(set(called)) == len(called)


def test_statements_become_core_appends_with_their_durability(
    memory: HierarchicalMemory,
) -> None:
    policy = RecordingPolicy()
    result = Agent(memory, policy).step(
        "My name is Ada. I am allergic to peanuts. I'm currently debugging the payment service.")
    appends = [a for name, a in policy.made if name == "core_memory_append"]
    assert [(a["content"], a["durability"]) for a in appends] == [
        ("User's name is Ada", "durable"),
        ("User is allergic to peanuts", "durable"),
        ("User is currently debugging the payment service", "short-lived"),
    ]
    assert all(a["request_heartbeat"] is True for a in appends)
    assert [name for name, _ in policy.made][-1] == "send_message"
    assert {f.text: f.durability for f in memory.core} == {
        "User's name is Ada": "durable",
        "User is allergic to peanuts": "durable",
        "User is currently debugging the payment service": "short-lived",
    }
    assert result.reply is not None and result.reply.startswith("Noted.")
    assert "core + User is allergic to peanuts" in result.reply
    assert result.steps == 2


def test_questions_search_both_tiers_and_quote_the_fact_offline(
    memory: HierarchicalMemory,
) -> None:
    agent = Agent(memory, OfflinePolicy())
    agent.step("I am allergic to peanuts.")
    policy = RecordingPolicy()
    agent.llm = policy
    result = agent.step("What am I allergic to?")

    names = [name for name, _ in policy.made]
    assert names == ["archival_memory_search", "conversation_search", "send_message"]
    assert policy.made[0][1]["query"] == "What am I allergic to?"
    assert policy.made[1][1]["roles"] == ["user"]  # never the assistant's own replies
    assert result.reply is not None
    assert result.reply.startswith("(offline, quoting memory)")
    assert "- From core memory: User is allergic to peanuts" in result.reply
    # Core holds the current fact; what the user once said is quoted only when core has none.
    assert "From our conversation" not in result.reply
    assert len(memory.core) == 1  # a question stores no facts


def test_an_evicted_fact_is_quoted_from_archival() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=12) as tiny:
        agent = Agent(tiny, OfflinePolicy())
        for text in ("I am allergic to peanuts.", "My name is Ada.", "I live in Lyon."):
            agent.step(text)
        assert "User is allergic to peanuts" not in [f.text for f in tiny.core]
        reply = agent.step("What am I allergic to?").reply
    assert reply is not None
    lines = reply.splitlines()
    assert any(line.startswith("- From archival (evicted from core ")
               and line.endswith("): User is allergic to peanuts") for line in lines)
    assert not any(line.startswith("- From core memory") for line in lines)


def test_a_fact_larger_than_core_is_stored_in_archival_and_the_reply_says_so() -> None:
    # What `tiermem chat --core-limit 1` does with a fact: it cannot fit in core at all.
    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=1) as tiny:
        agent = Agent(tiny, OfflinePolicy())
        reply = agent.step("Remember that my favourite colour is teal.").reply or ""
        [fact] = tiny.facts()
        assert fact.tier == "archival" and len(tiny.core) == 0
        [hit] = [h for h in tiny.archival_search("favourite colour teal").hits
                 if h.fact_id == fact.id]
        answer = agent.step("What is my favourite colour?").reply or ""
    assert "Could not store" not in reply
    assert reply.startswith("Noted.")
    assert (f"too large for core ({fact.tokens} tokens; core holds 1), so stored in archival"
            in reply)
    assert "raise the core limit" in reply
    assert hit.text == fact.text == "User's favourite colour is teal"
    assert "- From archival: User's favourite colour is teal" in answer


def test_unknown_answers_say_so(memory: HierarchicalMemory) -> None:
    agent = Agent(memory, OfflinePolicy())
    agent.step("I am allergic to peanuts.")
    reply = agent.step("Which train do I take tomorrow?").reply
    assert reply == "(offline) I found nothing in memory about that."


@pytest.mark.parametrize("question", ["What's 2+2?", "Is it 2 or 3?", "Is db 2 up?"])
def test_a_number_in_a_question_does_not_match_one_inside_an_identifier(
        memory: HierarchicalMemory, question: str) -> None:
    agent = Agent(memory, OfflinePolicy())
    agent.step("The prod region is ap-southeast-2.")
    assert agent.step(question).reply == NOTHING_FOUND


@pytest.mark.parametrize("question", ["Which region is ap-southeast-2?", "What is the prod region?",
                                      "What is in southeast?"])
def test_an_identifier_and_its_words_still_match(memory: HierarchicalMemory,
                                                 question: str) -> None:
    agent = Agent(memory, OfflinePolicy())
    agent.step("The prod region is ap-southeast-2.")
    assert "- From core memory: The prod region is ap-southeast-2" in (
        agent.step(question).reply or "")


_USERS_FACTS = ["User's name is Dana", "User is allergic to peanuts", "User lives in Lisbon"]


@pytest.mark.parametrize(("question", "listed"), [
    *[(q, _USERS_FACTS) for q in ("What do you know about me?", "Who am I?",
                                  "What do you remember about me?",
                                  "Tell me everything you know about me.",
                                  "So, what else do you know about me")],
    # memory in general: the user's facts first, then the others
    *[(q, [*_USERS_FACTS, "The prod region is ap-southeast-2"])
      for q in ("Tell me everything you remember.", "What do you remember?",
                "What do you know?")],
])
def test_a_question_about_the_user_or_memory_in_general_lists_core_facts(
        memory: HierarchicalMemory, question: str, listed: list[str]) -> None:
    agent = Agent(memory, OfflinePolicy())
    agent.step("The prod region is ap-southeast-2.")
    agent.step("My name is Dana. I am allergic to peanuts. I live in Lisbon.")
    policy = RecordingPolicy()
    agent.llm = policy
    reply = agent.step(question).reply
    assert reply == "\n".join(["(offline, quoting memory)",
                               *[f"- From core memory: {fact}" for fact in listed]])
    assert [name for name, _ in policy.made] == ["send_message"]  # core answers: no search


def test_a_specific_question_beside_a_general_one_is_still_answered(
        memory: HierarchicalMemory) -> None:
    agent = Agent(memory, OfflinePolicy())
    agent.step("The prod region is ap-southeast-2.")
    agent.step("My name is Dana.")
    reply = agent.step("What do you know about me? Where is the prod region?").reply or ""
    assert "The prod region is ap-southeast-2" in reply


def test_the_list_of_facts_about_the_user_is_bounded(memory: HierarchicalMemory) -> None:
    agent = Agent(memory, OfflinePolicy())
    foods = [f"food{i}" for i in range(MAX_LISTED + 3)]
    agent.step(" ".join(f"I love {food}." for food in foods))
    lines = (agent.step("What do you know about me?").reply or "").splitlines()
    assert lines[1:-1] == [f"- From core memory: User loves {food}" for food in foods[:MAX_LISTED]]
    assert lines[-1] == "- … and 3 more in core memory; ask about any of them."


def test_with_nothing_about_the_user_the_list_says_so(memory: HierarchicalMemory) -> None:
    agent = Agent(memory, OfflinePolicy())
    agent.step("The prod region is ap-southeast-2.")
    assert agent.step("What do you know about me?").reply == NOTHING_ABOUT_YOU
    assert agent.step("What do you know about Acme?").reply == NOTHING_FOUND


def test_a_long_text_is_filed_in_archival_whole(memory: HierarchicalMemory) -> None:
    policy = RecordingPolicy()
    log = "\n".join(f"2024-03-05 06:0{i % 10} ERROR payment-service timeout talking to db-{i}"
                    for i in range(20))
    result = Agent(memory, policy).step(log)
    assert [name for name, _ in policy.made] == ["archival_memory_insert", "send_message"]
    assert len(memory.archival) == 1 and len(memory.core) == 0
    assert result.reply is not None and "Filed in archival as passage 1" in result.reply


@pytest.mark.parametrize("request_", ["Remind me to renew the TLS cert on Friday.",
                                      "Please remind us to renew the TLS cert on Friday",
                                      "Remember to renew the TLS cert on Friday.",
                                      "Don't let me forget to renew the TLS cert on Friday.",
                                      "Don't forget about the TLS cert renewal on Friday."])
def test_a_reminder_is_acknowledged_as_kept_in_recall_not_set(memory: HierarchicalMemory,
                                                              request_: str) -> None:
    agent = Agent(memory, OfflinePolicy())
    assert agent.step(request_).reply == REMINDER_NOTE
    assert "can't set reminders" in REMINDER_NOTE and "recall" in REMINDER_NOTE
    later = agent.step("When do I renew the TLS cert?").reply or ""
    assert f"): {request_}" in later  # recall finds it, as the note says


@pytest.mark.parametrize("question", ["Remind me what I'm allergic to?",
                                      "Can you remind me what I'm allergic to?",
                                      "Remind me: what am I allergic to?"])
def test_a_question_asked_as_remind_me_gets_its_answer_without_the_reminder_note(
        memory: HierarchicalMemory, question: str) -> None:
    agent = Agent(memory, OfflinePolicy())
    agent.step("I'm allergic to peanuts.")
    reply = agent.step(question).reply or ""
    assert "peanuts" in reply and REMINDER_NOTE not in reply


def test_small_talk_gets_the_offline_explanation(memory: HierarchicalMemory) -> None:
    reply = Agent(memory, OfflinePolicy()).step("ok").reply
    assert reply is not None and "offline without a language model" in reply
