""""Tom's wife no longer works at Globex" is of Tom's wife, not of Tom: read as Tom's, by
whose she is, it retired "Tom works at Globex", a job no one said he left, and of "Tom
and his wife work at Globex" a retraction of his brother retired Tom's share."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.owners import owner_of, same_kin


@pytest.mark.parametrize(("held", "retraction"), [
    ("Tom works at Globex.", "Tom's wife no longer works at Globex."),
    ("Tom works at Globex.", "Tom's brother no longer works at Globex."),
    ("Tom's wife works at Globex.", "Tom's brother no longer works at Globex."),
    ("Tom's wife works at Globex.", "Tom no longer works at Globex."),
])
def test_a_retraction_of_someone_of_theirs_keeps_the_named_ones_fact(
        held: str, retraction: str) -> None:
    assert held.rstrip(".") in core_after(held, retraction)


def test_a_retraction_of_neither_member_keeps_a_joint_fact_whole() -> None:
    assert "Tom and his wife work at Globex" in core_after(
        "Tom and his wife work at Globex.", "Tom's brother no longer works at Globex.")


@pytest.mark.parametrize(("held", "retraction", "now"), [
    ("Tom's wife works at Globex.", "Tom's wife no longer works at Globex.", []),
    ("Tom works at Globex.", "Tom no longer works at Globex.", []),
    ("Tom and his wife work at Globex.", "Tom's wife no longer works at Globex.",
     ["Tom works at Globex"]),
])
def test_a_retraction_of_the_same_one_still_retires(held: str, retraction: str,
                                                    now: list[str]) -> None:
    assert core_after(held, retraction) == now


def test_kin_tells_the_named_one_from_theirs() -> None:
    wife, tom = owner_of("Tom's wife works at Globex"), owner_of("Tom works at Globex")
    assert wife is not None and wife.kin == "wife"
    assert not same_kin(wife, tom)
    assert same_kin(owner_of("Priya's team is on call"), owner_of("Priya's team is late"))
