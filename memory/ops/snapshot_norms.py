"""The key each fact of a snapshot is restored under, and how a refused snapshot is said.

``FactNorms`` gives each fact its key as the checks read the rows
(memory/ops/snapshot_checks.py), and again as they are read to be written
(memory/ops/snapshot_schema.py ``checked_rows``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from tiermem.memory.errors import SnapshotError
from tiermem.memory.store.records import tombstone_norm
from tiermem.memory.text.extract import fact_norms

#: What to do about a refused snapshot, which either someone changed since tiermem wrote it,
#: or tiermem wrote wrong (no store write leaves a memory whose snapshot restore refuses).
RESTORE_ADVICE = (
    "if the snapshot was edited by hand or written by another program, restore one as "
    "tiermem wrote it (HierarchicalMemory.snapshot(), write_snapshot() or /snapshot); if "
    "tiermem wrote it as it is, report that as a defect in tiermem, with the snapshot file")


def refused(where: str, message: str) -> SnapshotError:
    """The snapshot refused at ``where`` (``tables.facts[3].text``) for ``message``."""
    return SnapshotError(f"invalid snapshot: {where}: {message}; {RESTORE_ADVICE}", (where,))


class FactNorms:
    """The key each fact is restored under, fact by fact.

    A forgotten fact holds no key (``tombstone_norm``): the same text may be stated again.
    A live fact whose key another holds takes the key its spelling had before keys were
    composed (``earlier_fact_norms``): such versions kept "Café" typed composed and typed
    decomposed as two facts, and their snapshots restore as they were taken.
    """

    def __init__(self) -> None:
        # Keyed by a digest of each key, not the key: a key is a fact's text, normalised,
        # and the checks keep no text of a snapshot that may be large.
        self._holder: dict[bytes, int] = {}
        #: The facts whose text held a NUL or a lone surrogate, held as U+FFFD (rare).
        self._replaced: set[int] = set()

    def of(self, i: int, fact: Any, text_replaced: bool = False) -> str:
        """Fact ``i``'s key; SnapshotError when an earlier fact states the same.
        ``text_replaced``: its text held a NUL or a lone surrogate, now U+FFFD."""
        if fact.forgotten_at is not None:
            return tombstone_norm(fact.id)
        keys = fact_norms(fact.text)
        digests = [_digest(key) for key in keys]
        free = next((n for n, d in enumerate(digests) if d not in self._holder), None)
        if free is None:
            holder = self._holder[digests[0]]
            if text_replaced or holder in self._replaced:
                raise _merged_facts(i, holder)
            raise refused(f"tables.facts[{i}].text",
                          f"states the same fact as tables.facts[{holder}]")
        self._holder[digests[free]] = i
        if text_replaced:
            self._replaced.add(i)
        return keys[free]


def _merged_facts(i: int, holder: int) -> SnapshotError:
    # Not damage to report: an older version wrote both, and this one holds them as one.
    where = f"tables.facts[{i}].text"
    return SnapshotError(
        f"invalid snapshot: {where} states the same fact as tables.facts[{holder}] once "
        f"U+FFFD is held in place of each NUL or lone surrogate, which no store of this "
        f"version holds, so one fact would be lost: change or remove one of them in the "
        f"snapshot file and restore it again", (where,))


def _digest(key: str) -> bytes:
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).digest()
