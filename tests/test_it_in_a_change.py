""""Actually it's on Monday" after "The meeting is on Friday" is the meeting's new day:
"it" is the one thing the user's last statement named, when so read it gives that thing
a new value of what was said of it; otherwise the sentence is stored as said."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.referents import named_for_it


@pytest.mark.parametrize(("said", "now"), [
    (["The meeting is on Friday.", "Actually it's on Monday."], ["The meeting is on Monday"]),
    (["The meeting is on Friday.", "It is on Monday now."], ["The meeting is on Monday"]),
    (["The standup is at 9am. Actually it's at 10am."], ["The standup is at 10am"]),
])
def test_it_names_the_thing_just_told(said: list[str], now: list[str]) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, *said)
        assert sorted(core_of(memory)) == now


@pytest.mark.parametrize(("text", "said_last", "change"), [
    # no change cue: "it" may be anything
    ("It's on Monday.", "The meeting is on Friday.", None),
    # not a new value of what was said of the meeting
    ("It's raining.", "The meeting is on Friday.", "actually"),
    # two things named: which one, nothing says
    ("It's on Monday.", "The meeting is on Friday and the party is on Saturday.", "actually"),
    # a person is no "it"
    ("It's Monday.", "My sister is Ana.", "actually"),
    ("It's on Monday.", None, "actually"),
])
def test_it_is_left_as_said_when_it_names_nothing_for_sure(
        text: str, said_last: str | None, change: str | None) -> None:
    assert named_for_it(text, said_last, change) == text
