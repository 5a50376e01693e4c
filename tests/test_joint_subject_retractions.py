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


@pytest.mark.parametrize(("said", "now"), [
    (["Tom and I work at Globex.", "Ana no longer works at Globex."],
     ["Ana no longer works at Globex", "Tom and User work at Globex"]),
    (["My wife and I live in Porto.", "My sister doesn't live in Porto anymore."],
     ["User's sister doesn't live in Porto anymore", "User's wife and User live in Porto"]),
])
def test_a_retraction_of_no_member_leaves_the_joint_fact(said: list[str], now: list[str]
                                                         ) -> None:
    # Said of someone else, it says nothing of theirs, as it would of one of them alone.
    assert core_after(*said) == now
