""""Hold on, my PIN is 4321." (or "Wait, ...", "No wait, ...", "Um, ...") says the fact after
the slip: it takes the place of the PIN held, as "Sorry, my PIN is 4321" does, and the slip
is no part of what is stored."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize("slip", ["Hold on", "Hang on", "Wait", "No wait", "Whoops", "Um",
                                  "Uh", "Hmm", "Ah", "Er"])
def test_a_slip_before_a_value_said_again_replaces_it(slip: str) -> None:
    assert core_after("My PIN is 1234.", f"{slip}, my PIN is 4321.") == ["User's PIN is 4321"]


@pytest.mark.parametrize("slip", ["Um", "Hold on", "Wait"])
def test_a_slip_before_a_fact_is_no_part_of_it(slip: str) -> None:
    assert core_after(f"{slip}, I like tea.") == ["User likes tea"]


@pytest.mark.parametrize(("said", "stored"), [
    ("Wait for me at the station.", "User: Wait for me at the station"),
    ("Hold on to my keys for me.", "User: Hold on to my keys for me"),
    ("Ah Ming is my friend.", "Ah Ming is User's friend"),
])
def test_words_of_a_slip_that_open_a_statement_stay(said: str, stored: str) -> None:
    assert core_after(said) == [stored]


@pytest.mark.parametrize("slip", ["Hold on", "Hang on", "Um"])
def test_a_slip_before_i_meant_x_not_y_corrects_as_sorry_does(slip: str) -> None:
    assert core_after("I live in Lisbon.", f"{slip}, I meant Porto, not Lisbon.") == [
        "User lives in Porto"]


def test_a_slip_before_i_meant_x_alone_says_what_it_could_not_correct() -> None:
    # the slip taken off, "I meant Porto" was dropped with a reply that said nothing of it
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "I live in Lisbon.", "Hold on, I meant Porto.")[-1]
        assert "which word \"Porto\" corrects" in reply


@pytest.mark.parametrize("said", ["No wait.", "Hold on!", "Oh, hang on.", "I like tea; no wait."])
def test_a_slip_with_nothing_after_it_stores_nothing(said: str) -> None:
    # "No wait" and "Hold on" were stored as facts, where "No, wait." was none
    assert core_after("I like tea.", said) == ["User likes tea"]
