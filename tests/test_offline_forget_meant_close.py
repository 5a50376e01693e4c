"""What was meant, closing a request to forget, is still of the thing it named: which one
("Forget my PIN, I meant my new one") or its new value before a goodbye ("I meant 4321,
thanks, bye"), which read as part of the value lost it."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "kept"), [
    # "User: I meant" was stored
    ("Forget my PIN, I meant my new one.", []),
    ("Forget my PIN, I mean the old one.", []),
    # 4321 was lost with the goodbye read as part of it
    ("Forget my PIN, I meant 4321, thanks, bye.", ["User's PIN is 4321"]),
    ("Forget my PIN, I meant 4321, bye.", ["User's PIN is 4321"]),
])
def test_what_was_meant_closing_a_request(said: str, kept: list[str]) -> None:
    assert core_after("My PIN is 1234.", said) == kept
