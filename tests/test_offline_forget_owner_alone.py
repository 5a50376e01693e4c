"""The offline policy on a list to forget ending in an owner alone ("Forget my gym and my
dad's."): the owner's thing is the one named beside it, not every fact about them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.forget_requests import each_named_apart

DAD = "My dad's name is Bob. My dad's address is 3 Oak Road."


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("said", ["Forget my gym and my dad's.", "Forget my dad's and my gym."])
def test_the_owner_alone_takes_the_thing_beside_it(memory: HierarchicalMemory,
                                                   said: str) -> None:
    _chat(memory, f"{DAD} My gym is FitCo. My dad's gym is IronWorks.", said)
    assert _core(memory) == {"User's dad's name is Bob": "durable",
                             "User's dad's address is 3 Oak Road": "durable"}


def test_forgetting_one_of_his_things_keeps_the_others(memory: HierarchicalMemory) -> None:
    _chat(memory, DAD, "Forget my dad's address.")
    assert _core(memory) == {"User's dad's name is Bob": "durable"}


def test_each_thing_named_is_a_request_of_its_own() -> None:
    assert each_named_apart(["Forget my gym and my dad's."]) == [
        "Forget my gym.", "Forget my dad's gym."]
    assert each_named_apart(["Forget my mum's and my dad's address."]) == [
        "Forget my mum's address.", "Forget my dad's address."]
