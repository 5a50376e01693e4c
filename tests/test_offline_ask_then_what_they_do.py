""""Ask Tom, he runs the DB." asks and tells: read whole as a request it stored nothing,
and "Who runs the DB?" had no answer in core. The clause after the comma is Tom's."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core

from tiermem.memory.text.asked_of import with_asks_apart


@pytest.mark.parametrize(("said", "kept"), [
    ("Ask Tom, he runs the DB.", "Tom runs the DB"),
    ("Ask Priya - she manages the VPN.", "Priya manages the VPN"),
    ("Ask Tom, he's our DBA.", "Tom's our DBA"),
])
def test_what_the_one_to_ask_does_is_kept(said: str, kept: str) -> None:
    reply, held = reply_and_core(said)
    assert (held, "could not tell who" in reply) == ([kept], False)


def test_the_sentence_is_said_as_two() -> None:
    assert with_asks_apart(["Ask Tom, he runs the DB"]) == ["Ask Tom.", "Tom runs the DB."]


@pytest.mark.parametrize("said", ["Ask Tom.", "Ask me anything.", "Ask Tom, please.",
                                  "Ask for the invoice by Friday, then file it."])
def test_a_request_alone_is_still_no_fact(said: str) -> None:
    assert reply_and_core(said)[1] == []
