""""Tom and his wife work at Globex.": the wife is named through Tom, so her share of the
joint fact is "Tom's wife works at Globex". "Tom doesn't work at Globex anymore" ends
Tom's share only; with no share of hers that could stand alone, the retraction retired the
joint fact whole and her job with it; "Tom's wife no longer works at Globex" ends hers
only."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.joint_shares import of_no_member, shares_not_denied
from tiermem.memory.text.owners import owner_of

_JOINT = "Tom and his wife work at Globex"


@pytest.mark.parametrize("retraction", ["Tom doesn't work at Globex anymore.",
                                        "Tom no longer works at Globex."])
def test_tom_leaving_keeps_his_wifes_job(retraction: str) -> None:
    assert core_after(f"{_JOINT}.", retraction) == ["Tom's wife works at Globex"]


def test_his_wife_leaving_keeps_toms_job() -> None:
    # read as Tom's, her retraction retired the joint fact whole and his job with it
    assert core_after(f"{_JOINT}.", "Tom's wife no longer works at Globex.") == [
        "Tom works at Globex"]


def test_the_user_leaving_leaves_the_joint_fact_whole() -> None:
    # the user is neither Tom nor his wife
    assert of_no_member(owner_of("I no longer work at Globex"), _JOINT)
    assert _JOINT in core_after(f"{_JOINT}.", "I no longer work at Globex.")


@pytest.mark.parametrize(("said", "kept"), [
    ("Tom no longer works at Globex", ["Tom's wife works at Globex"]),
    # her own noun named: it is she who left, not Tom, by whose she is read
    ("Tom's wife no longer works at Globex", ["Tom works at Globex"]),
])
def test_whose_share_a_retraction_keeps(said: str, kept: list[str]) -> None:
    assert shares_not_denied(_JOINT, owner_of(said)) == kept


def test_a_pronoun_with_no_one_to_name_it_keeps_no_share() -> None:
    assert shares_not_denied("He and his wife work at Globex",
                             owner_of("Tom no longer works at Globex")) == []
