""""Who is on call? He is great.": the question is answered and the "he" names no one, so
what was said of him is not stored. The reply said only the answer: nothing told the user
that the statement was left out or that naming him would store it."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core


@pytest.mark.parametrize("said", ["Who is on call? He is great.",
                                  "Berlin? He works at Globex."])
def test_the_reply_beside_an_answer_asks_for_the_name(said: str) -> None:
    reply, held = reply_and_core(said)
    assert not any(fact.startswith(("He ", "She ")) for fact in held)
    assert 'could not tell who "He" is, so I did not store what you said of them' in reply
