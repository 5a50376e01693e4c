"""A thing's name and its state never replace each other; a state ends a state, a name a name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.identifiers import identifies
from tiermem.memory.text.updates import replaces


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


_NAMES = ["db-01", "eu-west-1", "10.0.0.5", "Postgres 16", "api.acme.io", "db-primary", "AWS"]
_STATES = ["down", "degraded", "back up", "read-only", "DOWN", "out-of-sync"]


@pytest.mark.parametrize("name", _NAMES)
@pytest.mark.parametrize("state", _STATES)
@pytest.mark.parametrize("change", [None, "now"])
def test_a_thing_s_name_and_its_state_never_replace_each_other(
        name: str, state: str, change: str | None) -> None:
    named, stated = f"The primary database is {name}", f"The primary database is {state}"
    assert not replaces(stated, named, change)
    assert not replaces(named, stated, change)


@pytest.mark.parametrize(("new", "old", "change"), [
    # A state ends the state before, said as a change or plainly.
    ("back up", "down", "now"),
    ("back up", "down", None),
    ("read-only", "down", "now"),
    ("healthy", "read-only", None),
    ("down", "UP", "now"),
    ("OK", "degraded", "now"),
    # A status code is a state an incident passes through: a state or a code ends it.
    ("resolved", "sev1", "now"),
    ("sev1", "sev2", "now"),
    ("sev1", "sev2", None),
    ("P1", "P3", "now"),
    # A name gives way to a name.
    ("db-02", "db-01", "now"),
    ("db-02", "db-01", None),
    ("Postgres 17", "Postgres 16", "now"),
    ("10.0.0.6", "10.0.0.5", "actually"),
    ("eu-central-1", "eu-west-1", "now"),
])
def test_a_state_replaces_a_state_and_a_name_a_name(new: str, old: str, change: str | None) -> None:
    assert replaces(f"The primary database is {new}", f"The primary database is {old}", change)


@pytest.mark.parametrize(("value", "names"), [
    ("db-01", True), ("eu-west-1", True), ("10.0.0.5", True), ("Postgres 16", True),
    ("AWS", True), ("db-primary", True), ("the Beatles", True),
    ("down", False), ("back up", False), ("read-only", False), ("up-to-date", False),
    ("DOWN", False), ("OK", False), ("sev1", False), ("SEV-2", False), ("P1", False),
    ("severity 3", False), ("a ThinkPad", True), ("an Audi A4", True), ("a nurse", False),
    # A reading says how much or when, so a state said now ends it; a bare number may be
    # a port, and an address is no reading.
    ("5%", False), ("at 90%", False), ("200ms", False), ("5 seconds", False), ("4GB", False),
    ("at 5pm", False), ("17:00", False), ("Friday", False), ("$500", False),
    ("5432", True), ("1.2.3", True), ("42 Elm", True),
    # Acronyms are short; a longer word in capitals, or capitals joined by "_", is a state.
    ("IBM", True), ("NASA", True), ("OPERATIONAL", False), ("QUEUED", False),
    ("DONE", False), ("IN_PROGRESS", False),
    # A state with until when or how long it holds is a state; a name with it, a name.
    ("down until 5pm", False), ("degraded for 2 hours", False), ("up since Monday", False),
    ("db-01 until 5pm", True), ("db-primary until 5pm", True),
])
def test_which_values_name_a_thing(value: str, names: bool) -> None:
    assert identifies(value) is names


@pytest.mark.parametrize(("said", "left"), [
    (["The primary database is db-01.", "The primary database is down now."],
     ["The primary database is db-01", "The primary database is down"]),
    (["The replica is 10.0.0.5.", "The replica is degraded now."],
     ["The replica is 10.0.0.5", "The replica is degraded"]),
    (["The primary database is down.", "The primary database is read-only now."],
     ["The primary database is read-only"]),
    (["The incident is sev2.", "The incident is sev1 now."], ["The incident is sev1"]),
    (["The error rate is 5%.", "The error rate is high now."], ["The error rate is high"]),
    (["The replica lag is 5 seconds.", "The replica lag is zero now."],
     ["The replica lag is zero"]),
    # A time is ended only by another time: when the backup runs is kept beside its state.
    (["The backup is at 2am.", "The backup is disabled now."],
     ["The backup is at 2am", "The backup is disabled"]),
    (["The status is DEGRADED.", "The status is OPERATIONAL now."],
     ["The status is OPERATIONAL"]),
    (["The job is RUNNING.", "The job is DONE now."], ["The job is DONE"]),
    (["The ticket is IN_PROGRESS.", "The ticket is closed now."], ["The ticket is closed"]),
    (["The provider is AWS.", "The provider is down now."],
     ["The provider is AWS", "The provider is down"]),
    # A time in a state makes no name of it, and what kind of thing it is keeps its name.
    (["The primary database is db-01.", "The primary database is down until 5pm now."],
     ["The primary database is db-01", "The primary database is down until 5pm"]),
    (["The primary database is down until 5pm.", "The primary database is back up now."],
     ["The primary database is back up"]),
    (["The primary database is db-01.", "The primary database is a replica now."],
     ["The primary database is db-01", "The primary database is a replica"]),
    (["The primary database is a replica.", "The primary database is db-02 now."],
     ["The primary database is a replica", "The primary database is db-02"]),
    (["The primary database is a replica.", "The primary database is a primary now."],
     ["The primary database is a primary"]),
])
def test_the_offline_policy_keeps_a_thing_s_name_through_its_states(
        memory: HierarchicalMemory, said: list[str], left: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == left


@pytest.mark.parametrize(("said", "left"), [
    # A make or model is named with its article, and is no state a state ends.
    (["My laptop is a ThinkPad.", "My laptop is no longer slow, it's fast."],
     ["User's laptop is a ThinkPad", "User's laptop is fast"]),
    (["My phone is a Pixel.", "My phone isn't working, it's broken."],
     ["User's phone is a Pixel", "User's phone is broken"]),
    (["My car is a Honda.", "No, my car is not really new."],
     ["User's car is a Honda", "User's car is not really new"]),
    # A make still gives way to a make, and a state to a state.
    (["My laptop is a ThinkPad.", "My laptop is a MacBook now."], ["User's laptop is a MacBook"]),
    (["My laptop is a ThinkPad.", "My laptop is slow.", "My laptop is no longer slow, it's fast."],
     ["User's laptop is a ThinkPad", "User's laptop is fast"]),
])
def test_a_make_stays_through_the_states_of_what_it_names(
        memory: HierarchicalMemory, said: list[str], left: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == left
