"""A "they" after several of which one is said with where it is ("The pods and the nodes
in us-east-1 are down.", "The servers in us-east-1 and the DB are down."): the place was
read as one of them, so the nodes were counted as others and "They were drained." was
asked about and lost, and the servers were read as the whole subject, so "They
recovered." stored "The servers recovered", the DB left out."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import unnamed_pronouns, with_pronouns_named


@pytest.mark.parametrize("said", [
    "The pods and the nodes in us-east-1 are down.",
    "The servers in us-east-1 and the DB are down.",
    "The caches in prod, the DBs and the queues are down.",
])
def test_they_are_all_of_them(said: str) -> None:
    several = said.removesuffix(" are down.")
    assert with_pronouns_named([said, "They were drained."], None) == [
        said, f"{several} were drained."]


def test_a_longer_place_before_others_is_asked_about() -> None:
    sentences = ["The servers in the EU region and the DB are down.", "They recovered."]
    # Never "The servers recovered": the DB is one of them.
    assert (with_pronouns_named(sentences, None), unnamed_pronouns(sentences, None)) == (
        sentences[:1], ["They"])


def test_where_they_are_alone_is_still_them() -> None:
    assert with_pronouns_named(["The servers in us-east-1 are down.", "They recovered."],
                               None)[1] == "The servers recovered."


def test_core_holds_the_db_recovered() -> None:
    held = core_after("The servers in us-east-1 and the DB are down. They recovered.")
    assert ("The servers in us-east-1 and the DB recovered" in held,
            "The servers recovered" in held) == (True, False)


@pytest.mark.parametrize("said", [
    "The pods in staging are down and the team is on it.",
    "The pods in us-east-1 are down, so we paged the on-call.",
    "The pods in us-east-1 crashed, and the team restarted them.",
])
def test_others_said_after_their_verb_are_none_of_them(said: str) -> None:
    assert with_pronouns_named([said, "They recovered."], None)[1] == "The pods recovered."


@pytest.mark.parametrize("said", [
    "The pods in the staging cluster and Redis are down.",
    "The pods in staging and two nodes are down.",
    "The pods in the big old staging cluster and the DB are down.",
])
def test_others_after_a_long_place_are_asked_about(said: str) -> None:
    sentences = [said, "They recovered."]
    # Never "The pods recovered": the others are of them too.
    assert (with_pronouns_named(sentences, None), unnamed_pronouns(sentences, None)) == (
        sentences[:1], ["They"])


@pytest.mark.parametrize(("said", "recovered"), [
    ("The servers in us-east-1 and eu-west-1 are down.", "The servers recovered."),
    ("The servers in Frankfurt and Paris are down.",
     "The servers in Frankfurt and Paris recovered."),
])
def test_another_place_joins_no_one(said: str, recovered: str) -> None:
    assert with_pronouns_named([said, "They recovered."], None)[1] == recovered
