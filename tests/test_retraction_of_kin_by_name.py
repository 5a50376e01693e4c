""""Anna's husband Tom works at Globex" is of Tom: "Tom no longer works at Globex" retires
it. Read as of Anna's husband alone, apart from Tom, it kept the job beside the
retraction, so both were held."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.owners import may_be_one, owner_of, same_kin


@pytest.mark.parametrize("retraction", ["Tom no longer works at Globex.",
                                        "Tom doesn't work at Globex anymore.",
                                        "Anna's husband no longer works at Globex."])
def test_the_job_of_the_husband_named_ends(retraction: str) -> None:
    assert core_after("Anna's husband Tom works at Globex.", retraction) == []


def test_anna_herself_leaves_her_husbands_job_standing() -> None:
    assert "Anna's husband Tom works at Globex" in core_after(
        "Anna's husband Tom works at Globex.", "Anna no longer works at Globex.")


@pytest.mark.parametrize(("named", "one"), [
    ("Tom", True), ("Tom Smith", False), ("Anna", False), ("Priya", False)])
def test_the_kin_is_the_one_their_own_name_names(named: str, one: bool) -> None:
    kin, other = owner_of("Anna's husband Tom works at Globex"), owner_of(f"{named} works")
    assert (may_be_one(kin, other) and same_kin(kin, other)) is one
