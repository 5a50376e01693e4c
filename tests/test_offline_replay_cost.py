"""A turn of the offline policy reads each of the user's recent messages once: a "back on"
or a "Forget that." replays the messages before it, and a window holding several of them
must not replay those again for each one (the count of readings doubled with each)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tiermem.agent import offline_statements
from tiermem.agent.offline_corrections import RECENT_MESSAGES
from tiermem.agent.offline_statements import core_changes

CALLED_OFF = "The meeting is cancelled."
BACK_ON = "The meeting is back on."


@pytest.fixture
def readings(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Each message ``core_changes`` reads, nested readings included, from a cold start."""
    read: list[str] = []
    real = offline_statements.core_changes

    def counted(text: str, *args: object, **kwargs: object) -> object:
        read.append(text)
        return real(text, *args, **kwargs)  # type: ignore[arg-type]

    cache_clear = getattr(offline_statements, "_replay_of", None)
    if cache_clear is not None:
        cache_clear.cache_clear()
    monkeypatch.setattr(offline_statements, "core_changes", counted)
    yield read


@pytest.mark.parametrize("window", [
    # Oldest first: each "back on" replays the messages before it.
    ["The meeting is at 3pm.", *[CALLED_OFF, BACK_ON] * 4, CALLED_OFF],
    # Each "Forget that." puts back what the move before it ended, from a replay.
    ["I live in Lisbon.", *["I moved to Porto.", "Forget that."] * 4, "I moved to Porto."],
])
def test_each_recent_message_is_read_once_a_turn(readings: list[str],
                                                 window: list[str]) -> None:
    assert len(window) == RECENT_MESSAGES
    recent = window[::-1]
    last = BACK_ON if window[-1] == CALLED_OFF else "Forget that."
    core = {"The meeting is cancelled": "short-lived"} if last == BACK_ON else {
        "User moved to Porto": "durable"}
    retired, new = core_changes(last, core, recent)
    assert retired and new  # the replay was needed: something was put back
    # Each earlier message once, and the one before each "Forget that." read alone once
    # more (what it told); a replay for each "back on" or "Forget that." read 62 and 78.
    assert len(readings) <= len(window) + window.count("Forget that.") + 1
