"""A move that names no place it left left only a home the speaker lived in before it:
another's home is not one ("Anna lived in Berlin, then I moved to Munich."), and a note
naming "User moved from Berlin to Munich" beside it would tell a fact the message never
said."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.moves import lived_before_moving

MOVED = "User moved from Berlin to Munich"
#: Each message, and the homes before its move that are the speaker's.
HOMES_LEFT: dict[str, set[str]] = {
    "Anna lived in Berlin, then I moved to Munich.": set(),
    "Anna lived in Berlin before I moved to Munich.": set(),
    "Tom grew up in Berlin, then I moved to Munich.": set(),
    "I'd lived in Berlin, then moved to Munich.": {"berlin"},
    "I was living in Berlin when I moved to Munich.": {"berlin"},
    "We'd lived in Berlin, then moved to Munich.": {"berlin"},
    "My wife and I lived in Berlin, then moved to Munich.": {"berlin"},
    "I had always lived in Berlin, then moved to Munich.": {"berlin"},
}


def test_only_the_speakers_home_before_the_move_is_the_place_it_left() -> None:
    read = {said: lived_before_moving(said) for said in HOMES_LEFT}
    assert read == HOMES_LEFT
    assert {said: says(said, MOVED) for said in HOMES_LEFT} == {
        said: bool(homes) for said, homes in HOMES_LEFT.items()}
