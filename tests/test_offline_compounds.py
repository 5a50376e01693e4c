"""The offline policy over facts that join statements: each statement of one sentence is
kept, changed and withdrawn on its own, and a fact an earlier version stored joined is still
known by each statement it holds."""

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


@pytest.mark.parametrize("withdrawal", [
    "Forget that customer 9034 uses SSO.",
    "Customer 9034 doesn't use SSO anymore.",
])
def test_withdrawing_one_statement_of_a_sentence_keeps_the_other(
        memory: HierarchicalMemory, withdrawal: str) -> None:
    replies = _chat(memory, "Customer 9034 uses SSO and is on the Team plan.", withdrawal,
                    "What plan is customer 9034 on?")
    assert _core(memory) == {"Customer 9034 is on the Team plan": "durable"}
    assert "- From core memory: Customer 9034 is on the Team plan" in replies[2]


@pytest.mark.parametrize("said", ["We use Datadog and are on the Team plan.",
                                  "We use Datadog, and we're on the Team plan."])
def test_what_we_are_beside_what_we_use_is_a_statement_of_its_own(
        memory: HierarchicalMemory, said: str) -> None:
    _chat(memory, said, "Forget that we use Datadog.")
    assert [text for text in _core(memory) if "Datadog" in text] == []
    assert len([text for text in _core(memory) if "Team plan" in text]) == 1


@pytest.mark.parametrize("speaker", ["User", "Ada"])
def test_a_named_speaker_s_quoted_sentence_splits_as_the_user_s_does(
        memory: HierarchicalMemory, speaker: str) -> None:
    memory.process_interaction("The alerts go to Opsgenie, and I don't use PagerDuty", "ok",
                               speaker=speaker)
    _chat(memory, "The alerts don't go to Opsgenie anymore.")
    assert list(_core(memory)) == [f"{speaker} doesn't use PagerDuty"]


@pytest.mark.parametrize("speaker", ["User", "Ada"])
@pytest.mark.parametrize("label", ["Incident", "Update"])
def test_a_label_in_a_speaker_s_words_leaves_the_first_person_theirs(
        memory: HierarchicalMemory, speaker: str, label: str) -> None:
    memory.process_interaction(
        f"{label}: the alerts go to Opsgenie, and I don't use PagerDuty", "ok", speaker=speaker)
    _chat(memory, "The alerts don't go to Opsgenie anymore.")
    assert list(_core(memory)) == [f"{speaker} doesn't use PagerDuty"]


def test_a_label_the_user_writes_in_chat_is_no_speaker(memory: HierarchicalMemory) -> None:
    _chat(memory, "Incident: the alerts go to Opsgenie, and I don't use PagerDuty",
          "The alerts don't go to Opsgenie anymore.")
    assert list(_core(memory)) == ["User doesn't use PagerDuty"]


def test_a_name_the_user_types_before_a_colon_quotes_someone_else(
        memory: HierarchicalMemory) -> None:
    # Pasted from a thread: Ada moved, not the user, whose home stays as it was.
    _chat(memory, "I live in Berlin.", "Ada: I moved to Paris and I don't eat meat.")
    assert list(_core(memory)) == [
        "User lives in Berlin", "User: Ada: I moved to Paris and I don't eat meat"]


def test_a_noted_first_person_is_not_told_of_the_label(memory: HierarchicalMemory) -> None:
    memory.add_fact("Note: the alerts go to Opsgenie, and I don't use PagerDuty", "durable")
    _chat(memory, "The alerts don't go to Opsgenie anymore.")
    assert "Note doesn't use PagerDuty" not in _core(memory)


@pytest.mark.parametrize(("said", "withdrawal", "core"), [
    ("We use Datadog, and the payment alerts go to Slack.", "Forget that we use Datadog.",
     {"The payment alerts go to Slack": "short-lived"}),
    ("Their name is Sam and they work at Acme.", "They no longer work at Acme.",
     {"Their name is Sam": "durable"}),
    ("The alerts go to Opsgenie, and I don't use PagerDuty.",
     "Forget that the alerts go to Opsgenie.", {"User doesn't use PagerDuty": "short-lived"}),
])
def test_withdrawing_one_statement_keeps_the_other_whoever_is_its_subject(
        memory: HierarchicalMemory, said: str, withdrawal: str, core: dict[str, str]) -> None:
    _chat(memory, said, withdrawal)
    assert _core(memory) == core


@pytest.mark.parametrize(("said", "changed", "core"), [
    ("I use SSO and am on the Team plan.", "I'm not on the Team plan anymore.",
     {"User uses SSO"}),
    ("I work at Acme and am on call this week.", "Actually I work at Globex.",
     {"User is on call this week", "User works at Globex"}),
    ("My wife works at Google and is a manager.", "My wife doesn't work at Google anymore.",
     {"User's wife is a manager"}),
])
def test_a_statement_said_in_the_speaker_s_words_is_kept_told_of_the_speaker(
        memory: HierarchicalMemory, said: str, changed: str, core: set[str]) -> None:
    _chat(memory, said, changed)
    assert set(_core(memory)) == core


def test_a_denial_of_the_speaker_s_keeps_the_statement_after_it_when_it_changes(
        memory: HierarchicalMemory) -> None:
    # "go" is no verb of being, but after "the alerts" and before "to", it is a statement's.
    replies = _chat(memory, "I don't use PagerDuty, and the alerts go to Opsgenie.",
                    "I use PagerDuty now.", "Where do the alerts go?")
    assert _core(memory) == {"The alerts go to Opsgenie": "short-lived",
                             "User uses PagerDuty": "short-lived"}
    assert "- From core memory: The alerts go to Opsgenie" in replies[2]


def test_an_earlier_version_s_joined_fact_keeps_the_statement_not_withdrawn(
        memory: HierarchicalMemory) -> None:
    memory.add_fact("Customer 9034 uses SSO and is on the Team plan", "durable")
    _chat(memory, "Forget that customer 9034 uses SSO.")
    assert _core(memory) == {"Customer 9034 is on the Team plan": "durable"}


@pytest.mark.parametrize("said", ["Customer 9034 is on the Team plan.",
                                  "Customer 9034 uses SSO and is on the Team plan."])
def test_a_statement_an_earlier_version_stored_joined_is_not_stored_twice(
        memory: HierarchicalMemory, said: str) -> None:
    memory.add_fact("Customer 9034 uses SSO and is on the Team plan", "durable")
    _chat(memory, said)
    assert _core(memory) == {"Customer 9034 uses SSO and is on the Team plan": "durable"}


def test_the_statements_of_one_sentence_do_not_replace_each_other(
        memory: HierarchicalMemory) -> None:
    _chat(memory, "The incident is sev1 and is P1.")
    assert set(_core(memory)) == {"The incident is sev1", "The incident is P1"}


@pytest.mark.parametrize("said", [
    "My favourite bands are Queen and the Rolling Stones.",
    "I like the product and am proud of it.",
    "I like people who use SSO and are on Team.",
    "I'm vegetarian and have been for years.",
    "I never use SSO and am on the Team plan.",
])
def test_a_sentence_whose_later_part_leans_on_the_first_stays_one_fact(
        memory: HierarchicalMemory, said: str) -> None:
    _chat(memory, said)
    assert len(memory.core) == 1
