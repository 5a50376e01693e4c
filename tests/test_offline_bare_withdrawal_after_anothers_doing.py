"""A bare withdrawal after another's doing ("Tom smokes, but I don't anymore") ends the
user's same doing: it ended nothing, and "User: I smoke" said the user still smokes."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize("messages", [
    ("I smoke.", "Tom smokes, but I don't anymore."),
    ("I smoke.", "Tom smokes but I don't anymore."),
    ("I smoke.", "Tom smokes. I don't anymore."),
    ("I smoke.", "Tom smokes.", "I don't anymore."),
])
def test_a_bare_withdrawal_after_anothers_doing_ends_the_users(
        messages: tuple[str, ...]) -> None:
    assert core_after(*messages) == ["Tom smokes"]


@pytest.mark.parametrize(("messages", "kept"), [
    # the user never said they smoke: nothing of theirs, and Tom's stays
    (("Tom smokes, but I don't anymore.",), ["Tom smokes"]),
    # a doing of another kind: the user's smoking is not what it ends
    (("I smoke.", "Tom runs, but I don't anymore."), ["Tom runs", "User: I smoke"]),
])
def test_a_bare_withdrawal_after_anothers_doing_ends_nothing_else(
        messages: tuple[str, ...], kept: list[str]) -> None:
    assert core_after(*messages) == kept
