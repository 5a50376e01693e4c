"""Which new value of a one-valued attribute ends the old one, as the offline policy reads it.

A new value ends only an old one of its kind: a height a height, a state a state, a tier
a tier. One that says another thing of the same person or thing (an age and a height, a
role and a state) is kept beside it, as losing a fact costs more than keeping two.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.identifiers import retimes, says_when
from tiermem.memory.text.kin_values import measure_of
from tiermem.memory.text.statements import read_statement
from tiermem.memory.text.updates import replaces, said_in_full


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("fact", "measure"), [
    ("User's son is 5", "age"), ("User's son is 5 years old", "age"),
    ("User's son is 5'11\" now", "height"), ("User's son is 6 feet", "height"),
    ("User's son is 180 cm tall", "height"), ("User's son is 30 kg", "weight"),
    ("User's son is Leo", None), ("User's son is in grade 2", None),
])
def test_which_measure_a_fact_gives_of_someone(fact: str, measure: str | None) -> None:
    assert measure_of(fact) == measure


@pytest.mark.parametrize(("value", "when"), [
    ("at 5pm", True), ("on Friday", True), ("17:00", True), ("by 9am.", True),
    ("at noon", True), ("tomorrow", True), ("next week", True), ("on Friday at 5pm", True),
    ("next Monday", True), ("today's build", False),
    ("stable", False), ("5%", False), ("db-01", False), ("down until 5pm", False),
])
def test_which_values_say_when(value: str, when: bool) -> None:
    assert says_when(value) is when


@pytest.mark.parametrize(("value", "moved"), [
    ("postponed", True), ("delayed until 6pm", True), ("pushed back", True),
    ("stable", False), ("cancelled", True), ("at 6pm", False),
    ("delayed by 30 minutes", False), ("pushed back an hour", False),
    ("postponed for a few days", False), ("postponed to next week", True),
])
def test_which_states_say_a_thing_is_no_longer_due_then(value: str, moved: bool) -> None:
    assert retimes(value) is moved


def test_a_name_said_in_full_says_the_short_one() -> None:
    assert said_in_full("User's brother is Tom", "User's brother is Tom Smith")
    assert not said_in_full("User's brother is Tom Smith", "User's brother is Tom")
    assert not said_in_full("User's brother is Tom", "User's sister is Tom Smith")
    assert not said_in_full("User's son is 5", "User's son is 5 years old")


@pytest.mark.parametrize("sentence", ["No, my son is Eva too.", "My son is Eva, too!",
                                      "Actually my son is Eva as well."])
def test_one_more_is_no_change_and_keeps_no_too(sentence: str) -> None:
    statement = read_statement(sentence)
    assert (statement.text, statement.change) == ("My son is Eva", None)


def test_a_measure_of_someone_replaces_as_the_policy_s_rule_reads_it() -> None:
    assert not replaces("User's son is 5'11\" now", "User's son is 5", "now")
    assert replaces("User's son is 6 feet", "User's son is 5'11\"", "now")
    assert replaces("User's son is 6 feet", "User's son is 5'11\"", None)


_MEASURES = [
    # An age and a height are two measures of one son: neither ends the other.
    (["My son is 5.", "My son is 5'11\" now."], ["User's son is 5", "User's son is 5'11\""]),
    (["My son is 5'11\".", "My son is 5 now."], ["User's son is 5'11\"", "User's son is 5"]),
    (["My son is 5'11\".", "My son is 30 kg now."],
     ["User's son is 5'11\"", "User's son is 30 kg"]),
    # A height ends a height, however it is written, as an age ends an age.
    (["My son is 5'11\".", "My son is 6 feet now."], ["User's son is 6 feet"]),
    (["My son is 180 cm.", "My son is 6 feet."], ["User's son is 6 feet"]),
    (["My son is 5.", "My son is 6 now."], ["User's son is 6"]),
    # Nor does a measure end what else is said of him.
    (["My son is 5.", "My son is in grade 2 now."],
     ["User's son is 5", "User's son is in grade 2"]),
]

_ROLE_AND_STATE = [
    # What someone is and how they are now are two facts of one person, said as a change too.
    (["My sister is a nurse.", "My sister is pregnant now."],
     ["User's sister is a nurse", "User's sister is pregnant"]),
    (["My sister is pregnant.", "My sister is a nurse now."],
     ["User's sister is pregnant", "User's sister is a nurse"]),
    # A role ends a role, and a state said as a change a state.
    (["My sister is a nurse.", "My sister is a doctor now."], ["User's sister is a doctor"]),
    (["My sister is sick.", "My sister is healthy now."], ["User's sister is healthy"]),
]

_STATE_UNTIL_WHEN = [
    # The same state with until when it holds is that state anew, said as a change or not.
    (["The primary database is down.", "The primary database is down until 5pm now."],
     ["The primary database is down until 5pm"]),
    (["The primary database is degraded.", "The primary database is down for 2 hours."],
     ["The primary database is down for 2 hours"]),
    # The time names nothing, so the thing's name stays through it.
    (["The primary database is db-01.", "The primary database is down until 5pm now."],
     ["The primary database is db-01", "The primary database is down until 5pm"]),
]

_ONE_OF_A_KIND = [
    # A plan ends a plan, written in capitals or not, and a team a team.
    (["Acme's plan is Pro.", "Acme's plan is free now."], ["Acme's plan is free"]),
    (["Acme's plan is free.", "Acme's plan is Pro now."], ["Acme's plan is Pro"]),
    (["The owner is the SRE team.", "The owner is the platform team now."],
     ["The owner is the platform team"]),
    (["The owner is the platform team.", "The owner is the SRE team now."],
     ["The owner is the SRE team"]),
    # Tier words are tiers of a plan, a tier or a subscription only.
    (["Acme's subscription is Team.", "Acme's subscription is business now."],
     ["Acme's subscription is business"]),
    (["The support tier is gold.", "The support tier is Platinum now."],
     ["The support tier is Platinum"]),
    # ... and of what holds one: an account's, a workspace's or an org's.
    (["My account is Pro.", "My account is free now."], ["User's account is free"]),
    (["Acme's workspace is Pro.", "Acme's workspace is free now."],
     ["Acme's workspace is free"]),
    (["Acme's org is Team.", "Acme's org is free now."], ["Acme's org is free"]),
    (["The laptop is Pro.", "The laptop is personal now."],
     ["The laptop is Pro", "The laptop is personal"]),
    (["The colour is Gold.", "The colour is silver now."], ["The colour is silver"]),
    # A state of the plan, another noun, or a thing's own name is no other of the kind.
    (["Acme's plan is Pro.", "Acme's plan is cancelled now."],
     ["Acme's plan is Pro", "Acme's plan is cancelled"]),
    (["The owner is the SRE team.", "The owner is the bottleneck now."],
     ["The owner is the SRE team", "The owner is the bottleneck"]),
    (["The primary database is the db-01 host.", "The primary database is the primary host now."],
     ["The primary database is the db-01 host", "The primary database is the primary host"]),
    # A reading of a quantity ends its level in words, as the level ends a reading.
    (["The error rate is high.", "The error rate is 2% now."], ["The error rate is 2%"]),
    (["The error rate is 5%.", "The error rate is high now."], ["The error rate is high"]),
    (["The latency is elevated.", "The latency is about 300ms now."],
     ["The latency is about 300ms"]),
    # A time, or a size beside how full a thing is, says something else.
    (["The deploy is stable.", "The deploy is at 5pm now."],
     ["The deploy is stable", "The deploy is at 5pm"]),
    (["The disk is full.", "The disk is 4GB now."], ["The disk is full", "The disk is 4GB"]),
    # A count of things or a length of time is no reading of a level: a cluster is stable
    # at any size, a build however long it runs.
    (["The cluster is stable.", "The cluster is 5 nodes now."],
     ["The cluster is stable", "The cluster is 5 nodes"]),
    (["The build is stable.", "The build is 45 minutes now."],
     ["The build is stable", "The build is 45 minutes"]),
    (["The service is stable.", "The service is 3 replicas now."],
     ["The service is stable", "The service is 3 replicas"]),
    # ... whichever is told first.
    (["The cluster is 5 nodes.", "The cluster is degraded now."],
     ["The cluster is 5 nodes", "The cluster is degraded"]),
    (["The build is 45 minutes.", "The build is broken now."],
     ["The build is 45 minutes", "The build is broken"]),
    (["The cluster is 3 nodes.", "The cluster is 5 nodes now."], ["The cluster is 5 nodes"]),
    # A rate is a reading, whatever it counts.
    (["The error rate is high.", "The error rate is 5 errors/min now."],
     ["The error rate is 5 errors/min"]),
    # So is an amount in thousands or a unit written out.
    (["The queue is high.", "The queue is 5k now."], ["The queue is 5k"]),
    (["The CPU is high.", "The CPU is 95 percent now."], ["The CPU is 95 percent"]),
    (["The traffic is low.", "The traffic is 3 gbps now."], ["The traffic is 3 gbps"]),
    (["The temperature is high.", "The temperature is 40 degrees now."],
     ["The temperature is 40 degrees"]),
]

_NAMED_SHORTER = [
    # A name said shorter is the one named in full: no second brother, no lost surname.
    (["My brother is Tom Smith.", "My brother is Tom."], ["User's brother is Tom Smith"]),
    (["My wife is Ana Silva.", "My wife is Ana."], ["User's wife is Ana Silva"]),
    # Said in full after, it ends the short name; another name is another brother.
    (["My brother is Tom.", "My brother is Tom Smith."], ["User's brother is Tom Smith"]),
    (["My brother is Tom Smith.", "My brother is Sam."],
     ["User's brother is Tom Smith", "User's brother is Sam"]),
]

_ONE_MORE = [
    # "too" says one more beside the one held, whatever cue opens it, and names no one.
    (["My son is Ana.", "No, my son is Eva too."], ["User's son is Ana", "User's son is Eva"]),
    (["My son is Ana.", "My son is Eva as well."], ["User's son is Ana", "User's son is Eva"]),
    (["My sister is a nurse.", "My sister is pregnant now too."],
     ["User's sister is a nurse", "User's sister is pregnant"]),
    # Without it, "No," corrects the name.
    (["My son is Ana.", "No, my son is Eva."], ["User's son is Eva"]),
]

_WHEN_AND_STATE = [
    # When a thing is due and how it is are two facts, whichever is said as a change.
    (["The deploy is at 5pm.", "The deploy is stable now."],
     ["The deploy is at 5pm", "The deploy is stable"]),
    (["The deploy is on Friday.", "The deploy is disabled now."],
     ["The deploy is on Friday", "The deploy is disabled"]),
    # ... but a state saying it is no longer due then ends the time.
    (["The meeting is at 3pm.", "The meeting is postponed now."], ["The meeting is postponed"]),
    (["The deploy is at 5pm.", "The deploy is delayed until 6pm now."],
     ["The deploy is delayed until 6pm"]),
    # ... and one saying by how long counts from the time, which still holds.
    (["The flight is at 6pm.", "The flight is delayed by 30 minutes now."],
     ["The flight is at 6pm", "The flight is delayed by 30 minutes"]),
    # A time ends a time.
    (["The deploy is at 5pm.", "The deploy is at 6pm now."], ["The deploy is at 6pm"]),
    (["The meeting is at 3pm.", "The meeting is at noon now."], ["The meeting is at noon"]),
    (["The meeting is at 3pm.", "The meeting is next week now."], ["The meeting is next week"]),
    (["The deadline is on Friday.", "The deadline is next week now."],
     ["The deadline is next week"]),
    # An hour alone is of the day it was due, which still holds.
    (["The meeting is on Friday.", "The meeting is at noon now."],
     ["The meeting is on Friday", "The meeting is at noon"]),
    (["The backup is tomorrow.", "The backup is at midnight now."],
     ["The backup is tomorrow", "The backup is at midnight"]),
]


@pytest.mark.parametrize(("said", "left"),
                         _MEASURES + _ROLE_AND_STATE + _STATE_UNTIL_WHEN + _ONE_OF_A_KIND
                         + _WHEN_AND_STATE + _NAMED_SHORTER + _ONE_MORE)
def test_a_new_value_ends_only_an_old_one_of_its_kind(
        memory: HierarchicalMemory, said: list[str], left: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == left
