"""Two facts an older version wrote as two, which this version holds as one: their texts
differ only where one holds a NUL or a lone surrogate and the other another, or U+FFFD,
which is what both are held as. The restore is refused, as it must not lose a fact, in
words that say so and what to do, not as damage to report."""

from __future__ import annotations

from typing import Any

import pytest
from snapshot_helpers import facts_of, small_snapshot

from tiermem.memory.errors import SnapshotError
from tiermem.memory.ops.snapshot import read_snapshot

SAID = ("invalid snapshot: tables.facts[{i}].text states the same fact as "
        "tables.facts[{j}] once U+FFFD is held in place of each NUL or lone surrogate, which "
        "no store of this version holds, so one fact would be lost: change or remove one of "
        "them in the snapshot file and restore it again")


def _two_live_facts(first: str, second: str) -> tuple[dict[str, Any], int, int]:
    snap = small_snapshot()
    facts = facts_of(snap)
    live = [i for i, fact in enumerate(facts) if fact["forgotten_at"] is None][:2]
    facts[live[0]]["text"], facts[live[1]]["text"] = first, second
    return snap, live[0], live[1]


@pytest.mark.parametrize(("first", "second"), [
    ("User lives in Lyon\x00", "User lives in Lyon\ud800"),
    ("User lives in Lyon\ufffd", "User lives in Lyon\x00"),
    ("User lives in Lyon\udfff", "User lives in Lyon\ufffd"),
], ids=["nul-surrogate", "fffd-nul", "surrogate-fffd"])
def test_facts_one_once_held_as_u_fffd_are_refused_saying_so(first: str,
                                                             second: str) -> None:
    snap, i, j = _two_live_facts(first, second)
    with pytest.raises(SnapshotError) as refused:
        read_snapshot(snap)
    assert str(refused.value) == SAID.format(i=j, j=i)
    assert refused.value.fields == (f"tables.facts[{j}].text",)


def test_facts_stating_the_same_as_written_are_still_damage_to_report() -> None:
    snap, i, j = _two_live_facts("User lives in Lyon\ufffd", "User lives in Lyon\ufffd")
    with pytest.raises(SnapshotError) as refused:
        read_snapshot(snap)
    assert str(refused.value).startswith(
        f"invalid snapshot: tables.facts[{j}].text: states the same fact as "
        f"tables.facts[{i}]; if the snapshot was edited by hand")
    assert "report that as a defect" in str(refused.value)
