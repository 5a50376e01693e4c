"""The offline policy on a list of things to forget that names the owner once ("Forget my
address and phone number"): each thing listed is the speaker's, and each goes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.forget_requests import each_named_apart

_TOLD = ("My address is 3 Pine Street. My phone number is 555-1234. My email is a@b.io.",
         "I'm allergic to peanuts.")


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("said", ["Forget my address and phone number and email.",
                                  "Forget my address, phone number and email.",
                                  "Please delete my address, phone number, and email."])
def test_each_thing_of_a_list_named_once_as_mine_is_forgotten(memory: HierarchicalMemory,
                                                              said: str) -> None:
    # Read whole, the request's words matched the phone number best, and only it went.
    _chat(memory, *_TOLD, said)
    assert _core(memory) == {"User is allergic to peanuts": "durable"}


def test_an_owner_of_the_first_thing_is_each_things() -> None:
    assert each_named_apart(["Forget my brother's address and phone number."]) == [
        "Forget my brother's address.", "Forget my brother's phone number."]


@pytest.mark.parametrize(("said", "asked"), [
    # what the speaker will do with it is left out, as after a comma
    ("Forget my address and I'll send the new one.", "Forget my address."),
    ("Forget my address, the one in Berlin.", "Forget my address, the one in Berlin.")])
def test_what_is_no_list_of_things_stays_one_request(said: str, asked: str) -> None:
    assert each_named_apart([said]) == [asked]
