"""Disk full at COMMIT: a write fails for lack of space, and the session goes on.

Where this machine allows it (root on Linux) the memory lives on a 2 MB
tmpfs filled up to a few pages, so SQLite itself reports SQLITE_FULL when the
transaction's pages reach the WAL at COMMIT. Elsewhere the connection is
wrapped so that one COMMIT rolls back and raises the error SQLite raises.

After the failed write, in the same session, nothing of it may remain: the
in-memory core, clock and FAISS indexes must match SQLite, and searches must
answer exactly what SQLite's own rows answer (the uncommitted text is not
found). Then space comes back, the session writes again (reusing the rowid
the failed write had taken) and the same must hold, in the session and after
a reopen.
"""

from __future__ import annotations

import errno
import os
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

from tiermem.bench.fault_audit import (
    answers,
    answers_from_sqlite,
    audit,
    index_problems,
    markers,
    session_problems,
)
from tiermem.bench.fault_kill_child import CORE_LIMIT, UNIT_FACTS, open_memory
from tiermem.bench.fault_os import tmpfs
from tiermem.bench.fault_result import FaultResult, describe
from tiermem.bench.sqlite_only import FullAtCommit, sqlite_store
from tiermem.bench.workload import durable_sentence, short_lived_sentence
from tiermem.memory import HierarchicalMemory
from tiermem.memory.store.records import DumpTable

MOUNT_SIZE = "2m"
MAX_WRITES = 12


def fill(root: Path, leave: int) -> Path:
    """Fill the file system at ``root`` but ``leave`` bytes; returns the filler file."""
    filler = root / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for chunk in (b"\0" * 65536, b"\0" * 4096):  # large writes first, then the last pages
            try:
                while True:
                    os.write(fd, chunk)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
    finally:
        size = os.fstat(fd).st_size
        os.ftruncate(fd, max(0, size - leave))
        os.close(fd)
    return filler


def write(memory: HierarchicalMemory, kind: str, marker: str, rng: random.Random) -> str:
    """One write carrying ``[marker]``; returns the text a search for it should use."""
    if kind == "passage":
        text = f"Full passage [{marker}] {durable_sentence(rng)} " * 3
        memory.archival_insert(text)
    elif kind == "fact":
        text = f"Full fact [{marker}] {short_lived_sentence(rng)}"
        memory.add_fact(text, "short-lived")
    elif kind == "talk":
        text = f"Full talk [{marker}]: the production region is eu-west-1."
        memory.process_interaction(text, f"Noted [{marker}].")
    else:
        text = f"Full unit [{marker}] item 0"
        with memory.interaction():
            for j in range(UNIT_FACTS):
                memory.add_fact(f"Full unit [{marker}] item {j}", "durable")
                memory.archival_insert(f"Full unit passage [{marker}] part {j}")
    return text


def _leftovers(memory: HierarchicalMemory, marker: str) -> int:
    tables: tuple[tuple[DumpTable, str], ...] = (
        ("facts", "text"), ("passages", "text"), ("messages", "content"))
    return sum(markers(memory, table, column)[marker] for table, column in tables)


class DiskTrial:
    """One memory, one failed write, and the checks after it."""

    def __init__(self, home: Path, trial: int, rng: random.Random, result: FaultResult) -> None:
        self.home = home
        self.trial = trial
        self.rng = rng
        self.result = result
        self.committed: list[str] = []
        self.queries: list[str] = []

    def write_until_full(self, memory: HierarchicalMemory) -> tuple[str, str] | None:
        """Write until one fails; its marker and query text, or None if none failed."""
        for i in range(MAX_WRITES):
            marker = f"f{self.trial}o{i}"
            kind = self.rng.choice(("passage", "fact", "talk", "unit"))
            try:
                text = write(memory, kind, marker, self.rng)
            except Exception as exc:
                self.result.exception(exc, f"trial {self.trial}: {kind} on a full disk")
                return marker, f"Full {kind} [{marker}]"
            self.committed.append(marker)
            self.queries.append(text)
        return None

    def check_session(self, memory: HierarchicalMemory, failed: str, stage: str) -> None:
        where = f"trial {self.trial}, {stage}"
        problems = session_problems(memory) + index_problems(memory)
        if left := _leftovers(memory, failed):
            problems.append(f"{left} rows of the failed write [{failed}] are in SQLite")
        self.result.diverge_all(problems, where)
        for marker in self.committed:
            if not _leftovers(memory, marker):
                self.result.lose(f"{where}: committed write [{marker}] is missing")

    def compare_answers(self, seen: list[Any], stage: str) -> None:
        expected = answers_from_sqlite(self.home, self.queries, core_limit=CORE_LIMIT)
        for query, got, want in zip(self.queries, seen, expected, strict=True):
            if got != want:
                shown = got[0][2][:60] if got else "nothing"
                self.result.diverge(f"trial {self.trial}, {stage}: a search for {query[:50]!r} "
                                    f"answered {shown!r}, unlike SQLite's rows")
                return


def run_trial(root: Path, trial: int, rng: random.Random, mounted: bool,
              result: FaultResult) -> bool:
    """One trial; True if a write failed for lack of space."""
    home = root / f"home{trial}"
    check = DiskTrial(home, trial, rng, result)
    memory = open_memory(home)
    try:
        for i, kind in enumerate(("passage", "talk", "fact", "unit")):
            check.queries.append(write(memory, kind, f"p{trial}o{i}", rng))
            check.committed.append(f"p{trial}o{i}")
        filler = fill(root, rng.choice((0, 4096, 8192, 16384))) if mounted else None
        if not mounted:
            store = sqlite_store(memory)
            store.conn = FullAtCommit(store.conn, rng.randint(1, 3))  # type: ignore[assignment]
        failed = check.write_until_full(memory)
        if filler is not None:
            filler.unlink()
        if failed is None:
            return False
        marker, query = failed
        check.queries.append(query)
        check.check_session(memory, marker, "after the failed write")
        write(memory, "passage", f"a{trial}o0", rng)  # takes the rowid the failed write had
        check.committed.append(f"a{trial}o0")
        check.check_session(memory, marker, "after writing again")
        seen = answers(memory, check.queries)
    except Exception as exc:
        result.crash(f"trial {trial}: {describe(exc)} after the disk filled")
        return True
    finally:
        memory.close()
    check.compare_answers(seen, "in the session")
    with open_memory(home) as memory:
        result.diverge_all(audit(memory), f"trial {trial}, reopened")
        check.check_session(memory, marker, "reopened")
    return True


def run_disk(seed: int, quick: bool, trials: int | None = None,
             force_injected: bool = False) -> FaultResult:
    result = FaultResult("disk full at COMMIT", "disk")
    rng = random.Random(f"{seed}:disk")
    count = trials if trials is not None else (6 if quick else 30)
    failures = 0
    with tmpfs(MOUNT_SIZE) as mount, tempfile.TemporaryDirectory(prefix="tiermem-disk-") as tmp:
        mounted = mount is not None and not force_injected
        root = mount if mounted and mount is not None else Path(tmp)
        for trial in range(count):
            result.trials += 1
            failures += run_trial(root, trial, rng, mounted, result)
            shutil.rmtree(root / f"home{trial}", ignore_errors=True)
    result.figures = {"mode": f"tmpfs of {MOUNT_SIZE}" if mounted else "injected SQLITE_FULL",
                      "writes_failed_for_space": failures}
    if failures < count:
        result.note("clear", f"{count - failures} trials filled the disk without a failed write")
    return result
