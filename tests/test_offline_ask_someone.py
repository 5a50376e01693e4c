""""Ask Tom." asks, it tells no fact: it was stored as "Ask Tom", and the "he" after it
("Ask Tom. He knows.") was no one, so the reply asked for the name just given."""

from __future__ import annotations

from offline_helpers import reply_and_core


def test_asking_someone_is_no_fact() -> None:
    assert reply_and_core("Ask Tom.")[1] == []


def test_the_pronoun_after_it_is_the_one_to_ask() -> None:
    reply, held = reply_and_core("Ask Tom. He knows.")
    assert held == ["Tom knows"]
    assert "could not tell who" not in reply


def test_a_firm_called_ask_is_still_told() -> None:
    assert reply_and_core("Ask is our CRM.")[1] == ["Ask is our CRM"]
