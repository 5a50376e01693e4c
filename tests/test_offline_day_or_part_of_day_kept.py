"""A thing due on a day at an hour, moved by half of that: a part of the day said alone
("The meeting is in the morning now" after "... on Friday at 3pm") keeps the day, as an
hour does; a day said alone ("... on Monday now") keeps the hour, since a meeting moved to
another day is held at its hour until a new one is said. The fact replaced stays in
archival either way."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.identifiers import with_new_day, with_new_hour


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "now"), [
    (["The meeting is on Friday at 3pm.", "The meeting is in the morning now."],
     "The meeting is on Friday in the morning"),
    (["The meeting is on Friday at 3pm.", "The meeting is in the evening now."],
     "The meeting is on Friday in the evening"),
    (["The meeting is on Friday at 3pm.", "The meeting is on Monday now."],
     "The meeting is on Monday at 3pm"),
    (["The meeting is on Friday at 3pm.", "The meeting is tomorrow now."],
     "The meeting is tomorrow at 3pm"),
    (["The meeting is on Friday morning.", "The meeting is on Monday now."],
     "The meeting is on Monday morning"),
    (["The meeting is on Friday in the afternoon.", "The meeting is at 5pm now."],
     "The meeting is on Friday at 5pm"),
    # a new day with its own hour, or no single day, says the whole new time
    (["The meeting is on Friday at 3pm.", "The meeting is on Monday at 9am now."],
     "The meeting is on Monday at 9am"),
    (["The meeting is on Friday at 3pm.", "The meeting is next week now."],
     "The meeting is next week"),
])
def test_the_half_of_the_time_not_said_is_kept(memory: HierarchicalMemory, said: list[str],
                                               now: str) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == [now]
    replaced = [hit.text for hit in memory.archival_search(said[0].rstrip("."), k=5).hits]
    assert said[0].rstrip(".") in replaced


def test_a_part_of_the_day_is_an_hour_but_no_word_inside_another() -> None:
    assert with_new_hour("in the morning", "on Friday at 3pm") == "on Friday in the morning"
    assert with_new_hour("at 5pm", "on Friday in the afternoon") == "on Friday at 5pm"
    assert with_new_day("on Monday", "on Friday at 3pm") == "on Monday at 3pm"
    assert with_new_day("on Monday", "tonight") is None  # no hour to keep
    assert with_new_day("next week", "on Friday at 3pm") is None
    assert with_new_day("on Monday", "on Friday from 3pm to 5pm") is None
