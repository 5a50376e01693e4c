"""A read-only home, and a home whose writer lock is held: inspection must still work.

The home is made read-only for real: a tmpfs remounted read-only where this
machine allows mounting (root ignores file modes), file modes elsewhere.
Opening it for writing must give a clear error. A read-only open
(``HierarchicalMemory(path, read_only=True)``) and ``tiermem diagnostics``
must read it, answering exactly what the home answered before, and refuse
writes with a clear error. The same read-only access must work on a
writable home while another session holds its writer lock.
"""

from __future__ import annotations

import contextlib
import random
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tiermem.bench.fault_audit import answers
from tiermem.bench.fault_cli import judge_cli, run_cli
from tiermem.bench.fault_files import build_home
from tiermem.bench.fault_kill_child import CORE_LIMIT
from tiermem.bench.fault_os import remount_read_only, tmpfs
from tiermem.bench.fault_result import FaultResult, describe
from tiermem.memory import HashingEmbedder, HierarchicalMemory

# `tiermem diagnostics --embedder hashing` opens homes with the default hashing embedder.
EMBEDDER_DIM = HashingEmbedder().dim


def _open(home: Path, **options: object) -> HierarchicalMemory:
    return HierarchicalMemory(home, embedder=HashingEmbedder(EMBEDDER_DIM),
                              core_limit=CORE_LIMIT, **options)  # type: ignore[arg-type]


def _build(home: Path, seed: int) -> tuple[list[str], list[object], list[str]]:
    """A home on the diagnostics embedder; its queries, their answers and its core facts."""
    rng = random.Random(seed)
    texts = build_home(home, "Readonly", seed, passages=12, talks=4, dim=EMBEDDER_DIM)
    queries = rng.sample(texts, 5)
    with _open(home) as memory:
        memory.add_fact("The read-only check's durable fact", "durable")
        return queries, list(answers(memory, queries)), [f.text for f in memory.core]


def read_only_open(home: Path, queries: list[str], expected: list[object], core: list[str],
                   what: str, result: FaultResult) -> None:
    """``read_only=True`` reads what is there and refuses writes with a clear error."""
    result.trials += 1
    try:
        memory = _open(home, read_only=True)
    except TypeError as exc:
        if "read_only" not in str(exc):
            raise
        result.crash(f"{what}: read-only open is not supported ({describe(exc)})")
        return
    except Exception as exc:
        result.exception(exc, f"{what}: read-only open")
        return
    with memory:
        if list(answers(memory, queries)) != expected:
            result.diverge(f"{what}: a read-only open answers unlike the home")
        if [f.text for f in memory.core] != core:
            result.diverge(f"{what}: a read-only open shows other core facts")
        result.trials += 1
        try:
            memory.add_fact("A write through a read-only open", "durable")
        except Exception as exc:
            result.exception(exc, f"{what}: a write through a read-only open")
        else:
            result.diverge(f"{what}: a write through a read-only open was accepted")


def _diagnostics(root: Path, name: str, what: str, result: FaultResult) -> None:
    result.trials += 1
    run = run_cli(["diagnostics", "--agent", name, "--embedder", "hashing", "--format", "json"],
                  {"TIERMEM_HOME": str(root)})
    judge_cli(run, f"{what}: tiermem diagnostics", result)


@contextlib.contextmanager
def _read_only_root(force_modes: bool) -> Iterator[tuple[Path, str]]:
    """A directory to build homes in, and how it will be made read-only."""
    with tmpfs("16m") as mount:
        if mount is not None and not force_modes:
            yield mount, "read-only tmpfs"
            return
    with tempfile.TemporaryDirectory(prefix="tiermem-readonly-") as tmp:
        try:
            yield Path(tmp), "file modes"
        finally:  # give write access back so the directory can be removed
            for path in [Path(tmp), *Path(tmp).rglob("*")]:
                with contextlib.suppress(OSError):
                    path.chmod(path.stat().st_mode | stat.S_IWUSR)


def _make_read_only(root: Path, how: str) -> bool:
    if how == "read-only tmpfs":
        return remount_read_only(root)
    for path in [*root.rglob("*"), root]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    probe = root / "agents" / "probe"
    try:
        probe.write_text("")
    except OSError:
        return True
    probe.unlink()
    return False  # file modes do not bind this user (root without mount)


def run_readonly(seed: int, quick: bool, homes: int | None = None,
                 force_modes: bool = False) -> FaultResult:
    result = FaultResult("read-only home", "files")
    count = homes if homes is not None else (1 if quick else 3)
    with _read_only_root(force_modes) as (root, how):
        built = [(f"ro{i}", *_build(root / "agents" / f"ro{i}", seed + i)) for i in range(count)]
        result.figures = {"read_only_by": how, "homes": count}
        if not _make_read_only(root, how):
            result.skipped = "cannot make a home read-only here (file modes do not bind root)"
            return result
        for name, queries, expected, core in built:
            home = root / "agents" / name
            what = f"{how} {name}"
            result.trials += 1
            try:
                _open(home).close()
            except Exception as exc:
                result.exception(exc, f"{what}: opening for writing")
            read_only_open(home, queries, expected, core, what, result)
            _diagnostics(root, name, what, result)
    with tempfile.TemporaryDirectory(prefix="tiermem-locked-") as tmp:
        home = Path(tmp) / "agents" / "locked"
        queries, expected, core = _build(home, seed)
        with _open(home):  # another session's writer
            read_only_open(home, queries, expected, core, "a locked home", result)
            _diagnostics(Path(tmp), "locked", "a locked home", result)
    return result

