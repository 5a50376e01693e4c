"""The offline policy on facts an earlier version stored (whole compound sentences, quoted
words): re-asserted, not doubled, and changed one statement at a time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.agent.offline_answers import NOTHING_CURRENT
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


OLDER = "User's name is Dana and I live in Lisbon"  # earlier versions rewrote the head only


@pytest.mark.parametrize("stored", [OLDER, OLDER.replace("Lisbon", "lisbon").upper()])
def test_a_fact_an_earlier_version_stored_is_re_asserted_not_doubled(
        memory: HierarchicalMemory, stored: str) -> None:
    memory.add_fact(stored, "durable")
    _chat(memory, "My name is Dana and I live in Lisbon.")
    assert list(_core(memory)) == [stored]


def test_a_fact_an_earlier_version_stored_then_retired_is_not_current(
        memory: HierarchicalMemory) -> None:
    # Retired in the words it was stored in, the statement behind it is not quoted as current.
    memory.add_fact(OLDER, "durable")
    _chat(memory, "My name is Dana and I live in Lisbon.")
    memory.replace_in_core(OLDER, "")
    assert _chat(memory, "Where do I live?") == [NOTHING_CURRENT]


def test_a_compound_fact_that_changes_in_one_statement_keeps_the_others(
        memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "The production region is eu-west-1 and the staging region is "
                            "us-east-2.", "Actually the staging region is now eu-central-1.",
                    "What is the staging region?", "Which region is production?")
    assert _core(memory) == {"The production region is eu-west-1": "durable",
                             "The staging region is eu-central-1": "durable"}
    assert "eu-central-1" in replies[2] and "us-east-2" not in replies[2]
    assert "eu-west-1" in replies[3]
    [retired] = [h for h in memory.archival_search("us-east-2", k=5).hits]
    assert retired.metadata.get("superseded_at") is not None


def test_each_statement_of_a_sentence_lasts_as_long_as_it_says(
        memory: HierarchicalMemory) -> None:
    _chat(memory, "My phone number is 555-1234 and my hotel room is 412 this week.")
    assert _core(memory) == {"User's phone number is 555-1234": "durable",
                             "User's hotel room is 412 this week": "short-lived"}


def test_a_sentence_joining_statements_is_stored_as_one_fact_each(
        memory: HierarchicalMemory) -> None:
    _chat(memory, "My favourite bands are Queen and the Rolling Stones and my favourite food "
                  "is sushi.", "Actually my favourite food is now ramen.")
    assert list(_core(memory)) == ["User's favourite bands are Queen and the Rolling Stones",
                                   "User's favourite food is ramen"]


@pytest.mark.parametrize(("said", "left"), [
    # Its first statement changes, or its last; or a retraction denies one.
    ("Actually the production region is now eu-north-1.",
     ["The staging region is us-east-2", "The production region is eu-north-1"]),
    ("Actually the staging region is now eu-central-1.",
     ["The production region is eu-west-1", "The staging region is eu-central-1"]),
])
def test_a_compound_fact_stored_before_changes_one_statement_at_a_time(
        memory: HierarchicalMemory, said: str, left: list[str]) -> None:
    memory.add_fact("The production region is eu-west-1 and the staging region is us-east-2",
                    "durable")
    _chat(memory, said)
    assert list(_core(memory)) == left


def test_a_compound_fact_stated_again_is_re_asserted_whole(memory: HierarchicalMemory
                                                           ) -> None:
    both = "The production region is eu-west-1 and the staging region is us-east-2"
    memory.add_fact(both, "durable")
    _chat(memory, both + ".")
    assert list(_core(memory)) == [both]


def test_a_retraction_takes_one_statement_of_a_compound_fact(
        memory: HierarchicalMemory) -> None:
    memory.add_fact("User lives in Lisbon and User works at Acme", "durable")
    _chat(memory, "I no longer work at Acme.")
    assert list(_core(memory)) == ["User lives in Lisbon"]


@pytest.mark.parametrize("said", ["I'm vegetarian, and I don't drink coffee.",
                                  "I am vegetarian and I do not drink coffee."])
def test_withdrawing_one_of_two_statements_keeps_a_negated_other(
        memory: HierarchicalMemory, said: str) -> None:
    reply = _chat(memory, said, "I'm not vegetarian anymore.", "Do I drink coffee?")[-1]
    kept = "User doesn't drink coffee" if "don't" in said else "User does not drink coffee"
    assert _core(memory) == {kept: "durable"}
    assert reply == f"(offline, quoting memory)\n- From core memory: {kept}"


def test_a_negated_statement_stored_whole_by_an_earlier_version_is_kept_when_the_other_goes(
        memory: HierarchicalMemory) -> None:
    memory.add_fact("User is vegetarian, and I don't drink coffee", "durable")
    _chat(memory, "I'm not vegetarian anymore.")
    # Kept as said, "I don't drink coffee" would say of no one who does not.
    assert _core(memory) == {"User doesn't drink coffee": "durable"}


@pytest.mark.parametrize(("older", "said", "now"), [
    ("User is vegetarian, and I don't drink coffee", "Sorry, I meant tea, not coffee.",
     {"User is vegetarian": "durable", "User doesn't drink tea": "durable"}),
    ("User's sister is vegan and I do not eat pork", "My sister isn't vegan anymore.",
     {"User does not eat pork": "durable"}),
])
def test_the_speaker_s_own_words_in_an_earlier_version_s_compound_fact_are_told_of_the_speaker(
        memory: HierarchicalMemory, older: str, said: str, now: dict[str, str]) -> None:
    memory.add_fact(older, "durable")
    _chat(memory, said)
    assert _core(memory) == now


def test_a_negated_statement_stored_by_an_earlier_version_is_not_stored_twice(
        memory: HierarchicalMemory) -> None:
    older = ["User: I don't drink coffee", "User is vegetarian, and I don't drink coffee",
             # the version before rewrote later clauses, but not "I don't"
             "User's name is Dana, User lives in Lisbon and I don't drink coffee"]
    for text in older:
        memory.add_fact(text, "durable")
    _chat(memory, "I don't drink coffee.", "I'm vegetarian, and I don't drink coffee.",
          "My name is Dana, I live in Lisbon and I don't drink coffee.")
    assert list(_core(memory)) == older
