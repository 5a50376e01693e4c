"""An en or em dash typed with no spaces ("Lisbon—I moved") joins clauses as a spaced one
does, in statements, retractions and corrections alike; a hyphen joins words ("well-known")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.corrections import Correction, correction_apart, correction_of
from tiermem.memory.text.fragments import meant_alone
from tiermem.memory.text.person import third_person
from tiermem.memory.text.statements import own_clauses


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("text", "told"), [
    ("I live in Lisbon—I moved last year", "User lives in Lisbon—User moved last year"),
    ("I live in Lisbon–I moved last year", "User lives in Lisbon–User moved last year"),
    ("I live in Lisbon — I moved last year", "User lives in Lisbon — User moved last year"),
    ("I live in a well-known area—I moved there",
     "User lives in a well-known area—User moved there"),
])
def test_a_clause_after_an_unspaced_dash_is_told_of_the_speaker(text: str, told: str) -> None:
    assert third_person(text, "User") == told


@pytest.mark.parametrize(("sentence", "clauses"), [
    ("I'm not vegetarian anymore—I eat fish now",
     ["I'm not vegetarian anymore", "I eat fish now"]),
    ("I'm not vegetarian anymore – I eat fish now",
     ["I'm not vegetarian anymore", "I eat fish now"]),
    # A hyphen joins words, and a clause that points back stays with the one before it.
    ("I'm not a well-known vegetarian anymore", ["I'm not a well-known vegetarian anymore"]),
    ("I don't work at Google anymore—my wife does",
     ["I don't work at Google anymore—my wife does"]),
])
def test_an_unspaced_dash_opens_a_clause_of_the_speaker_s_own(
        sentence: str, clauses: list[str]) -> None:
    assert own_clauses(sentence) == clauses


def test_a_correction_opened_by_an_unspaced_dash_is_read() -> None:
    assert correction_of("No—I meant Porto, not Lisbon") == Correction("Porto", "Lisbon")
    assert meant_alone("sorry—i meant teams") == "teams"
    assert correction_apart("Sorry, I meant Portland, not Seattle—I work at Acme") == [
        "Sorry, I meant Portland, not Seattle", "I work at Acme"]


@pytest.mark.parametrize(("said", "left"), [
    (["I live in Lisbon—I moved last year."], ["User lives in Lisbon—User moved last year"]),
    (["I'm vegetarian.", "I'm not vegetarian anymore—I eat fish now."], ["User: I eat fish"]),
    (["I'm on call.", "I'm not on call anymore—Priya is."], ["Priya is on call"]),
    (["I live in Lisbon.", "No—I meant Porto, not Lisbon."], ["User lives in Porto"]),
    (["I live in Seattle.", "Sorry, I meant Portland, not Seattle—I work at Acme."],
     ["User lives in Portland", "User works at Acme"]),
    (["I use Slack at work.", "sorry—i meant teams, not slack"], ["User uses Teams at work"]),
])
def test_what_is_stored_after_an_unspaced_dash_is_what_a_spaced_one_stores(
        memory: HierarchicalMemory, said: list[str], left: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == left


def test_a_slip_named_without_what_it_corrects_after_an_unspaced_dash_stores_nothing(
        memory: HierarchicalMemory) -> None:
    reply = chat(memory, "I live in Lisbon.", "No—I meant Porto.")[-1]
    assert list(core_of(memory)) == ["User lives in Lisbon"]
    assert 'which word "Porto" corrects' in reply


@pytest.mark.parametrize("said", [
    "Hi—I'm Dana.", "Hello–I am Dana.", "Hi — I'm Dana.",
    "Call me Dana—everyone does.", "Call me Dana - everyone does.",
])
def test_an_introduction_with_an_unspaced_dash_names_the_user(
        memory: HierarchicalMemory, said: str) -> None:
    chat(memory, said)
    assert list(core_of(memory)) == ["User's name is Dana"]


@pytest.mark.parametrize(("said", "question", "reply"), [
    # the home and hers are held apart, so a move ends the home alone
    ("I live in Munich—my wife lives in Berlin.", "Where does my wife live?",
     "User's wife lives in Berlin"),
    ("I live in Munich — my wife lives in Berlin.", "Where does my wife live?",
     "User's wife lives in Berlin"),
    ("My wife is vegan—I'm not.", "Am I vegan?", "User's wife is vegan—User is not"),
])
def test_a_statement_after_a_dash_answers_a_question_about_the_one_it_names(
        memory: HierarchicalMemory, said: str, question: str, reply: str) -> None:
    assert chat(memory, said, question)[-1] == (
        f"(offline, quoting memory)\n- From core memory: {reply}")
