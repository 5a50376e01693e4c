"""A request to forget joined to a statement told in the same message ("I moved to Faro,
so forget my address") keeps the statement: it is the user's news, matched by the request
through a concept it shares ("address" and "moved" both tell where the user lives), not
the thing to forget. One the request names in its own words is still forgotten, and a move
told in an earlier message is still retired by "Forget my address"."""

from __future__ import annotations

import pytest

from tiermem.agent.offline_statements import core_changes
from tiermem.memory.text.retractions import named_in_its_words

_LISBON = {"User lives in Lisbon": "durable"}
_MOVES = ["I moved to Faro, so forget my address.", "I moved to Faro, forget my address.",
          "I moved to Faro. Forget my address."]


@pytest.mark.parametrize("said", _MOVES)
def test_the_move_told_with_the_request_is_kept(said: str) -> None:
    assert core_changes(said, {}) == ([], {"User moved to Faro": "durable"})
    assert core_changes(said, _LISBON) == (["User lives in Lisbon"],
                                           {"User moved to Faro": "durable"})


def test_news_of_a_move_is_kept() -> None:
    retired, new = core_changes("We are moving, so I want our address gone.", {})
    assert (retired, list(new)) == ([], ["We are moving"])


def test_a_forget_then_news_in_one_message() -> None:
    said = "Forget my PIN. I moved to Faro, so forget my address."
    assert core_changes(said, {"User's PIN is 1234": "short-lived"}) == (
        ["User's PIN is 1234"], {"User moved to Faro": "durable"})


def test_what_the_request_names_in_its_words_is_still_forgotten() -> None:
    assert core_changes("My PIN is 1234. Forget my PIN.", {}) == ([], {})
    assert core_changes("My address is 5 Pine Street. Forget my address.", {}) == ([], {})


def test_a_move_told_before_is_still_retired() -> None:
    retired, new = core_changes("Forget my address.", {"User moved to Faro": "durable"})
    assert (retired, new) == (["User moved to Faro"], {})


def test_words_not_concepts() -> None:
    assert named_in_its_words("User's PIN is 1234", "Forget my PIN.")
    assert not named_in_its_words("User moved to Faro", "Forget my address.")


@pytest.mark.parametrize("said", ["I live in Faro now, so forget my address.",
                                  "I live in Faro now. Forget my address."])
def test_where_the_user_lives_now_is_kept(said: str) -> None:
    assert core_changes(said, {}) == ([], {"User lives in Faro": "durable"})


def test_an_address_told_then_asked_to_forget_is_forgotten() -> None:
    # told plainly, not as news: the request means it
    said = "My address is 5 Pine Street, so please forget where I live."
    assert core_changes(said, {}) == ([], {})
