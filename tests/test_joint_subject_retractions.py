"""A retraction by one member of a joint subject ("I no longer work at Globex" after "Tom
and I work at Globex") retires the joint fact but keeps what it said of the others, as a
fact of its own: Tom still works at Globex."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "now"), [
    (["Tom and I work at Globex.", "I no longer work at Globex."], ["Tom works at Globex"]),
    (["Tom and I work at Globex.", "I don't work at Globex anymore."],
     ["Tom works at Globex"]),
    (["My wife and I live in Porto.", "I don't live in Porto anymore."],
     ["User's wife lives in Porto"]),
    (["Tom and I work at Globex.", "Tom doesn't work at Globex anymore."],
     ["User works at Globex"]),
])
def test_a_members_retraction_keeps_the_others_share(said: list[str], now: list[str]
                                                      ) -> None:
    assert core_after(*said) == now
