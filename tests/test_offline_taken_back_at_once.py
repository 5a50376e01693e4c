"""A statement taken back in the message that says it ("I like tea. I don't anymore.")
stores nothing, and the reply says why: it said that nothing held matched, as if the
withdrawal had been of something held."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core


@pytest.mark.parametrize("said", [
    "I like tea. I don't anymore.",
    "I smoke. Actually I don't anymore.",
    "I'm vegan. I'm not anymore.",
])
def test_a_statement_taken_back_at_once_is_said_to_be(said: str) -> None:
    assert reply_and_core(said) == (
        "(offline) You took that back in the same message, so nothing was stored.", [])


@pytest.mark.parametrize("said", ["I don't anymore.", "I no longer work at Acme."])
def test_a_withdrawal_of_nothing_said_still_matches_nothing(said: str) -> None:
    reply, core = reply_and_core(said)
    assert "took that back" not in reply
    assert ("Nothing in core memory matched" in reply) == (not core)
