"""Snapshot files under faults: their writer stopped part-way, and damaged ones restored.

``kill-snapshot`` stops the process writing a snapshot file (``write_snapshot``, the
chat's ``/snapshot``) with SIGKILL or SIGINT: from inside, just before a seeded step
(a piece of the JSON text written, the sync of the file, its rename, the sync of its
directory), or from the parent once the writer has reported N snapshots written. The
file of that name must then be the one there before (an older snapshot, or none) or
the new one whole, the new one once the writer reported it written; a writer stopped by
SIGINT leaves no temporary file, and one killed leaves none once the next write ran.

``damaged-snapshot`` restores damaged snapshot files with ``tiermem restore FILE --agent
A --replace`` over an agent that holds a memory: truncated, emptied, cut by NULs, with
bytes that are no UTF-8 or text after the end, or changed between the check and the
write. Each must be refused (exit 1 or 2, a message, no traceback) with the agent's memory
unchanged, row for row. A flipped byte may leave a valid snapshot: it is refused the same
way, or restored into a memory that passes the audit. Every restore runs in a forked child.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from tiermem.bench.fault_audit import audit, stored_embedder
from tiermem.bench.fault_kill_child import Tripwire, open_memory
from tiermem.bench.fault_os import Report, run_forked
from tiermem.bench.fault_result import FaultResult
from tiermem.bench.workload import durable_sentence
from tiermem.memory.store.sqlite import SQLiteStore
from tiermem.memory.store.transfer import content_digest

#: Kills from inside at a seeded step; the rest come from the parent after N reports.
INTERNAL_SHARE = 0.75
#: Damage that leaves no snapshot, so a restore must refuse it.
REFUSED = ("truncated", "emptied", "NULs to the end", "no UTF-8", "text after the end",
           "changed while restored")
DAMAGES = (*REFUSED, "flipped byte")


def _build(home: Path, seed: int) -> None:
    rng = random.Random(seed)
    with open_memory(home) as memory:
        for j in range(12):
            memory.add_fact(f"Snapfile fact {j}: {durable_sentence(rng)}", "durable")
            memory.archival_insert(f"Snapfile passage {j}: {durable_sentence(rng)}")
        for j in range(6):
            memory.process_interaction(f"Snapfile talk {j}: the region is eu-west-{j}.",
                                       "Noted.")


# -- the writer stopped part-way ------------------------------------------------------------
class _Wire(Tripwire):
    """A tripwire that sends ``signum`` (SIGKILL or SIGINT) just before step ``at``."""

    def __init__(self, at: int, signum: int) -> None:
        super().__init__(at)
        self.signum = signum

    def step(self) -> None:
        self.steps += 1
        if self.steps == self.at:
            os.kill(os.getpid(), self.signum)

    def arm(self) -> None:
        """Count each piece of snapshot text, each sync and each rename of this process."""
        import tiermem.memory.ops.snapshot as snapshot

        text = snapshot.snapshot_text

        def counted(*args: Any, **kwargs: Any) -> Iterator[str]:
            for piece in text(*args, **kwargs):
                self.step()
                yield piece
        snapshot.snapshot_text = counted
        os.fsync = self.counting(os.fsync)
        os.replace = self.counting(os.replace)


def _writer(home: Path, target: Path, at: int | None, signum: int) -> Callable[[Report], None]:
    def work(report: Report) -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with open_memory(home, stored_embedder(home)) as memory:
            report("READY")
            if at is not None:
                _Wire(at, signum).arm()
            try:
                for i in range(1_000):
                    memory.write_snapshot(target)
                    report(f"written {i}")
            except KeyboardInterrupt:
                report("INTERRUPTED")
    return work


def _temporaries(target: Path) -> list[str]:
    return sorted(p.name for p in target.parent.glob(f".{target.name}.*.tmp"))


def kill_snapshot_writes(seed: int, quick: bool, trials: int | None = None) -> FaultResult:
    """Stop snapshot file writes part-way: the file is the old one or the new one whole."""
    result = FaultResult("kill: snapshot file writes", "kill")
    count = trials if trials is not None else (10 if quick else 100)
    rng = random.Random(f"{seed}:kill:snapshot-file")
    figures = {"kills_from_inside": 0, "kills_after_reports": 0, "sigint": 0,
               "snapshots_reported_written": 0, "old_file_kept": 0, "new_file_whole": 0}
    with tempfile.TemporaryDirectory(prefix="tiermem-snapfile-") as tmp:
        home, out = Path(tmp) / "home", Path(tmp) / "out"
        out.mkdir()
        _build(home, seed)
        with open_memory(home, stored_embedder(home)) as memory:
            memory.write_snapshot(out / "old.json")
            memory.add_fact("Snapfile fact after the old snapshot", "durable")
            memory.write_snapshot(out / "new.json")
        old, new = (out / "old.json").read_bytes(), (out / "new.json").read_bytes()
        # Steps of one write: its pieces, the file's sync, the rename, the directory's sync.
        steps = new.count(b"}, {") + 40
        target = out / "snap.json"
        for trial in range(count):
            result.trials += 1
            had = rng.random() < 0.5
            if had:
                shutil.copyfile(out / "old.json", target)
            else:
                target.unlink(missing_ok=True)
            internal = rng.random() < INTERNAL_SHARE
            signum = signal.SIGINT if internal and rng.random() < 0.3 else signal.SIGKILL
            at = rng.randint(1, 2 * steps) if internal else None
            figures["kills_from_inside" if internal else "kills_after_reports"] += 1
            figures["sigint"] += signum == signal.SIGINT
            outcome = run_forked(_writer(home, target, at, signum),
                                 kill_after=None if internal else 2 + rng.randrange(3))
            where = f"trial {trial} ({'inside, step ' + str(at) if internal else 'after reports'}"
            where += ", SIGINT)" if signum == signal.SIGINT else ")"
            if (error := outcome.error) is not None:
                kind, text = error
                (result.clear if kind == "clear" else result.crash)(f"{where}: {text}")
            elif outcome.hung or not (outcome.killed or "INTERRUPTED" in outcome.lines):
                result.crash(f"{where}: the writer ended with {outcome.exit_code}")
            written = sum(line.startswith("written ") for line in outcome.lines)
            figures["snapshots_reported_written"] += written
            found = target.read_bytes() if target.exists() else None
            if found == new:
                figures["new_file_whole"] += 1
                if target.stat().st_mode & 0o077:
                    result.diverge(f"{where}: the snapshot is readable by other users")
            elif written:
                result.lose(f"{where}: a snapshot reported written is "
                            f"{'missing' if found is None else 'not the one written'}")
            elif found == (old if had else None):
                figures["old_file_kept"] += had
            else:
                result.diverge(f"{where}: the file is {'gone' if found is None else 'half '}"
                               f"{'written' if found is not None else ''}, not the one there "
                               f"before or the new one whole")
            if signum == signal.SIGINT and (left := _temporaries(target)):
                result.diverge(f"{where}: stopped by SIGINT, it left {left[0]}")
        with open_memory(home, stored_embedder(home)) as memory:
            memory.write_snapshot(target)  # sweeps what killed writers left
        if left := _temporaries(target):
            result.diverge(f"after the last write, {len(left)} temporary files of killed "
                           f"writers are still there, e.g. {left[0]}")
    result.figures = figures
    return result


# -- damaged files restored -------------------------------------------------------------------
def damage(data: bytes, how: str, rng: random.Random) -> bytes:
    """``data`` damaged ``how`` ("changed while restored" is done later: left as it is)."""
    cut = rng.randrange(1, len(data))
    if how == "truncated":
        return data[:cut]
    if how == "emptied":
        return b""
    if how == "NULs to the end":
        return data[:cut] + bytes(len(data) - cut)
    if how == "no UTF-8":
        return data[:cut] + b"\xff" + data[cut:]
    if how == "text after the end":
        return data + b" x" * rng.randint(1, 4)
    if how == "flipped byte":
        flipped = bytearray(data)
        flipped[cut] ^= 1 << rng.randrange(8)
        return bytes(flipped)
    return data


def _restorer(file: Path, env: dict[str, str], changed: bool) -> Callable[[Report], None]:
    def work(report: Report) -> None:
        from tiermem.bench.fault_cli import run_cli
        from tiermem.memory.ops.snapshot_source import SnapshotFile

        members = SnapshotFile.members
        readings: list[int] = []

        def members_then_cut(self: SnapshotFile, *args: Any, **kwargs: Any) -> Any:
            readings.append(1)
            if changed and len(readings) == 2:  # after the check, before the write
                file.write_bytes(file.read_bytes()[: file.stat().st_size // 2])
            return members(self, *args, **kwargs)

        with mock.patch.object(SnapshotFile, "members", members_then_cut):
            run = run_cli(["restore", str(file), "--agent", "ada", "--replace"], env)
        said = run.stderr + run.stdout
        report(json.dumps({"code": run.code, "said": said.strip()[-200:],
                           "traceback": "Traceback (most recent call last)" in said,
                           "raised": None if run.exception is None else repr(run.exception)}))
    return work


def _digest(home: Path) -> str:
    store = SQLiteStore(home, read_only=True)
    try:
        return content_digest(store)[2]
    finally:
        store.close()


def damaged_snapshots(seed: int, quick: bool, trials: int | None = None) -> FaultResult:
    """Restore damaged snapshot files over an agent: refused, the agent's memory unchanged."""
    result = FaultResult("damaged snapshot file", "files")
    count = trials if trials is not None else (len(DAMAGES) if quick else 40)
    rng = random.Random(f"{seed}:damaged-snapshot")
    hows: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="tiermem-snapdamage-") as tmp:
        root = Path(tmp)
        _build(root / "source", seed)
        with open_memory(root / "source", stored_embedder(root / "source")) as memory:
            memory.write_snapshot(root / "source.json")
        data = (root / "source.json").read_bytes()
        env = {"TIERMEM_HOME": str(root / "tiermem"), "TIERMEM_STORE": ""}
        agent = root / "tiermem" / "agents" / "ada"
        _build(root / "pristine", seed + 1)
        for trial in range(count):
            how = DAMAGES[trial % len(DAMAGES)] if trial < len(DAMAGES) else rng.choice(DAMAGES)
            hows[how] = hows.get(how, 0) + 1
            result.trials += 1
            if not agent.exists():
                shutil.copytree(root / "pristine", agent)
            before = _digest(agent)
            file = root / f"damaged{trial}.json"
            file.write_bytes(damage(data, how, rng))
            outcome = run_forked(_restorer(file, env, how == "changed while restored"))
            where = f"trial {trial} ({how})"
            if outcome.error is not None or outcome.exit_code != 0 or not outcome.lines:
                result.crash(f"{where}: the restore killed its process: "
                             f"{outcome.error or outcome.exit_code}")
                shutil.rmtree(agent)
                continue
            run = json.loads(outcome.lines[-1])
            if run["raised"] or run["traceback"] or run["code"] not in (0, 1, 2):
                result.crash(f"{where}: {run['raised'] or 'exit ' + str(run['code'])}: "
                             f"{run['said']}")
            elif run["code"] == 0:
                if how in REFUSED:
                    result.diverge(f"{where}: a file that is no snapshot was restored")
                with open_memory(agent, stored_embedder(agent)) as memory:
                    result.diverge_all(audit(memory), where)
                shutil.rmtree(agent)  # the next trial restores over the pristine memory
                continue
            else:
                result.clear(f"{where}: exit {run['code']}: {run['said']}")
            if _digest(agent) != before:
                result.diverge(f"{where}: refused, yet the agent's memory changed")
            if left := sorted(p.name for p in agent.glob("memory.sqlite3.restore-*")):
                result.diverge(f"{where}: refused, it left {left[0]}")
    result.figures = {"damage": hows}
    return result
