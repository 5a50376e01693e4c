"""The offline policy on a request that opens by naming what to forget: "Forget my sister"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_after
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("said", ["Forget my sister.", "Please forget my sister.",
                                  "Forget about my sister!", "Ok, delete my sister.",
                                  "Erase my sister", "Never mind, forget my sister."])
def test_it_forgets_the_fact_named_and_stores_no_request(memory: HierarchicalMemory,
                                                         said: str) -> None:
    replies = _chat(memory, "My sister is called Ana.", "I'm vegan.", said)
    # Before, "Forget my sister." was itself kept as the fact "Forget User's sister".
    assert _core(memory) == {"User is vegan": "durable"}
    assert "User's sister is called Ana" in replies[-1]


def test_a_named_forget_that_matches_nothing_says_so(memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "I'm vegan.", "Forget my address.")
    assert _core(memory) == {"User is vegan": "durable"}
    assert "Nothing in core memory matched" in replies[-1]


@pytest.mark.parametrize(("said", "kept"), [
    # Said of someone else, or of the speaker's own forgetting, or asked to keep: a fact.
    ("My wife will forget my birthday.", "User's wife will forget User's birthday"),
    ("I always forget my keys.", "User: I always forget my keys"),
    ("Don't forget my passport.", "User's passport"),
])
def test_forgetting_told_of_is_no_request(memory: HierarchicalMemory, said: str,
                                          kept: str) -> None:
    _chat(memory, "My sister is called Ana.", said)
    assert _core(memory) == {"User's sister is called Ana": "durable", kept: "durable"}


def test_forget_about_the_thing_forgets_it(memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "The deploy freeze runs until Friday.",
                    "The staging DB is on host db-02.",
                    "Forget about the deploy freeze, it ended.")
    assert _core(memory) == {"The staging DB is on host db-02": "short-lived"}
    assert "The deploy freeze runs until Friday" in replies[-1]


def test_a_step_to_delete_files_stays_a_fact(memory: HierarchicalMemory) -> None:
    # "delete" opens a request to forget only for what is the speaker's: a runbook step
    # ("Delete the temp files ...") is told, not asked.
    _chat(memory, "Delete the temp files before deploying.")
    assert _core(memory) == {"Delete the temp files before deploying": "short-lived"}


def test_forgetting_the_hometown_keeps_where_the_user_lives(memory: HierarchicalMemory) -> None:
    # read as one with "lives", the hometown took the residence with it, and "I live in
    # York" had already replaced it as if the user had moved from Leeds
    _chat(memory, "My hometown is Leeds.", "I live in York.")
    assert _core(memory) == {"User's hometown is Leeds": "durable",
                             "User lives in York": "durable"}
    _chat(memory, "Forget my hometown.")
    assert _core(memory) == {"User lives in York": "durable"}
    _chat(memory, "I grew up in Leeds.", "Forget my hometown.")
    assert "User lives in York" in _core(memory)


def test_a_street_named_like_the_thing_is_kept(memory: HierarchicalMemory) -> None:
    # "Glass" of the street met "glasses" as its plural: the address went with them
    _chat(memory, "My address is 5 Glass St.", "I wear glasses.", "Forget my glasses.")
    assert _core(memory) == {"User's address is 5 Glass St.": "durable"}
    _chat(memory, "Forget Glass St.")
    assert _core(memory) == {}


def test_a_home_town_in_two_words_is_a_hometown(memory: HierarchicalMemory) -> None:
    # read as "home" and "town", each a word of where one lives, it took the residence
    _chat(memory, "My home town is Leeds.", "I live in York.", "Forget my home town.")
    assert _core(memory) == {"User lives in York": "durable"}


@pytest.mark.parametrize(("first", "then"), [
    ("My home town is Leeds.", "My hometown is Bradford."),
    ("My hometown is Leeds.", "My home town is Bradford.")])
def test_a_hometown_however_spelled_replaces_the_one_held(memory: HierarchicalMemory,
                                                          first: str, then: str) -> None:
    # apart from where the user lives, the two spellings stood apart too: both were held
    _chat(memory, first, then)
    assert list(_core(memory)) == [then.rstrip(".").replace("My", "User's")]


@pytest.mark.parametrize(("held", "said"), [("My address is 5 Kings Road.", "Forget King Road."),
                                            ("My address is 5 King Road.", "Forget Kings Road.")])
def test_a_street_typed_as_a_street_meets_its_plural(memory: HierarchicalMemory, held: str,
                                                     said: str) -> None:
    # met only word for word, the street named to forget kept the address
    _chat(memory, held, said)
    assert _core(memory) == {}


@pytest.mark.parametrize("said", ["Forget my brother's name.", "Delete my brother's name.",
                                  "Please forget my brother's name, thanks."])
def test_a_name_held_as_who_someone_is_goes_by_its_name(said: str) -> None:
    # read as a thing of its own, the request matched nothing and the name stayed
    assert core_after("My sister is Ana.", "My brother is Tom.", said) == [
        "User's sister is Ana"]


@pytest.mark.parametrize(("held", "kept"), [
    # only the name goes, not what else is held of him
    (["My brother is Tom.", "My brother is a doctor."], ["User's brother is a doctor"]),
    (["My brother is Tom.", "My brother's car is a Fiat."], ["User's brother's car is a Fiat"]),
    # no name held: nothing goes
    (["My brother is a doctor."], ["User's brother is a doctor"]),
])
def test_only_the_name_goes(held: list[str], kept: list[str]) -> None:
    assert core_after(*held, "Forget my brother's name.") == kept
