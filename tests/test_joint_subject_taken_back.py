"""Taking back a change of one member of a joint subject ("Forget that." after "I work at
Acme now", which split "Tom works at Globex" off "Tom and I work at Globex") holds the
joint fact again and takes back the share split off it, which would say it twice."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.joint_shares import member_shares


@pytest.mark.parametrize(("said", "now"), [
    (["Tom and I work at Globex.", "I work at Acme now.", "Forget that."],
     ["Tom and User work at Globex"]),
    (["Tom and I work at Globex.", "Tom works at Acme now.", "Forget that."],
     ["Tom and User work at Globex"]),
    (["My wife and I live in Porto.", "I live in Lisbon now.", "Forget that."],
     ["User's wife and User live in Porto"]),
    (["Tom and I work at Globex.", "I no longer work at Globex.", "Forget that."],
     ["Tom and User work at Globex"]),
    # all in one message: the share split off is no statement "Forget that." must choose
    (["Tom and I work at Globex. I work at Acme now. Forget that."],
     ["Tom and User work at Globex"]),
])
def test_taking_back_a_members_change_takes_back_the_split(said: list[str], now: list[str]
                                                           ) -> None:
    assert core_after(*said) == now


def test_every_members_share_of_a_joint_fact() -> None:
    assert member_shares("Tom and User work at Globex") == [
        "Tom works at Globex", "User works at Globex"]
    assert member_shares("Tom and his wife work at Globex") == [
        "Tom works at Globex", "Tom's wife works at Globex"]
    assert member_shares("He and his wife work at Globex") == []
    assert member_shares("User works at Globex") == []
