"""Damaged files: a garbled FAISS index, a replaced database, a damaged WAL.

Each trial damages a closed (or crashed) agent home, then opens it in a
forked child, so a crash in native code on a garbled file is counted rather
than fatal. Opening must give a clear error or a consistent memory whose
searches answer exactly what SQLite's own rows answer (bench.fault_audit:
the same searches on a copy with the FAISS files left out).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from tiermem.bench.fault_audit import Answers, answers, answers_from_sqlite, audit, stored_embedder
from tiermem.bench.fault_kill_child import CORE_LIMIT, DIM, open_memory
from tiermem.bench.fault_os import Report, run_forked
from tiermem.bench.fault_result import FaultResult
from tiermem.bench.workload import durable_sentence
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.store.sqlite import DB_FILE

_WAL_PASSAGE = re.compile(r"Wal unit .* part .*", re.DOTALL)


def build_home(home: Path, prefix: str, seed: int, passages: int = 30, talks: int = 8,
               dim: int = DIM) -> list[str]:
    """A memory with passages and conversation; returns texts to search for."""
    rng = random.Random(seed)
    texts = []
    with open_memory(home, HashingEmbedder(dim)) as memory:
        for j in range(passages):
            texts.append(f"{prefix} passage {j}: {durable_sentence(rng)}")
            memory.archival_insert(texts[-1])
        for j in range(talks):
            texts.append(f"{prefix} talk {j}: the production region is {rng.randrange(99)}.")
            memory.process_interaction(texts[-1], f"Noted, {prefix} {j}.")
    return texts


def digests(found: Answers) -> list[str]:
    """One short digest per query's hits, so answers fit in a report line."""
    return [hashlib.sha1(json.dumps(hits).encode()).hexdigest()[:16] for hits in found]


def open_and_search(home: Path, queries: list[str], reopen: bool) -> Callable[[Report], None]:
    """Child work: open, audit and search (twice, with ``reopen``: saving must heal)."""

    def work(report: Report) -> None:
        for stage in ("opened", "reopened")[: 2 if reopen else 1]:
            with open_memory(home, stored_embedder(home)) as memory:
                found = answers(memory, queries)
                report(json.dumps({"stage": stage, "problems": audit(memory)}))
                report(json.dumps({"stage": stage, "answers": digests(found)}))
    return work


def judge(home: Path, queries: list[str], what: str, result: FaultResult,
          reopen: bool = True) -> None:
    """Open the damaged ``home`` in a child and compare its answers with SQLite's."""
    outcome = run_forked(open_and_search(home, queries, reopen))
    if (error := outcome.error) is not None:
        kind, text = error
        (result.clear if kind == "clear" else result.crash)(f"{what}: {text}")
        return
    if outcome.exit_code != 0:
        result.crash(f"{what}: opening it killed the process (exit {outcome.exit_code})")
        return
    expected: list[str] | None = None
    for line in outcome.lines:
        record = json.loads(line)
        where = f"{what}, {record['stage']}"
        result.diverge_all(record.get("problems", []), where)
        if "answers" not in record:
            continue
        expected = expected or digests(answers_from_sqlite(home, queries, core_limit=CORE_LIMIT))
        wrong = [q for q, g, e in zip(queries, record["answers"], expected, strict=True)
                 if g != e]
        if wrong:
            result.diverge(f"{where}: {len(wrong)} of {len(queries)} searches answered unlike "
                           f"SQLite's rows, e.g. {wrong[0][:50]!r}")


# -- a garbled FAISS file ------------------------------------------------------------------
def garble_index(file: Path, rng: random.Random, dim: int) -> str:
    """Damage a saved IndexIDMap2 (layout: header, codes, id map); returns how."""
    data = bytearray(file.read_bytes())
    ntotal = int.from_bytes(data[8:16], "little")
    ids_start = len(data) - 8 * ntotal
    codes_start = ids_start - 8 - 4 * ntotal * dim
    how = rng.choice(("vector bytes", "vector bytes", "swapped vectors", "swapped ids",
                      "header", "truncated"))
    if how == "vector bytes":
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(codes_start, ids_start - 8)] ^= 1 << rng.randrange(8)
    elif how == "swapped vectors" and ntotal > 1:
        a, b = rng.sample(range(ntotal), 2)
        row = 4 * dim
        va = data[codes_start + a * row: codes_start + (a + 1) * row]
        data[codes_start + a * row: codes_start + (a + 1) * row] = (
            data[codes_start + b * row: codes_start + (b + 1) * row])
        data[codes_start + b * row: codes_start + (b + 1) * row] = va
    elif how == "swapped ids" and ntotal > 1:
        a, b = (ids_start + 8 * i for i in rng.sample(range(ntotal), 2))
        data[a: a + 8], data[b: b + 8] = data[b: b + 8], data[a: a + 8]
    elif how == "header":
        data[rng.randrange(0, 48)] ^= 1 << rng.randrange(8)
    else:
        del data[rng.randrange(1, len(data)):]
    file.write_bytes(bytes(data))
    return how


def garbled_faiss(seed: int, quick: bool, trials: int | None = None) -> FaultResult:
    """Flip, swap or cut bytes of a saved index: answers must equal a rebuild's."""
    result = FaultResult("garbled FAISS file", "files")
    trials = trials if trials is not None else (4 if quick else 30)
    rng = random.Random(f"{seed}:garbled")
    hows: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="tiermem-garbled-") as tmp:
        for trial in range(trials):
            home = Path(tmp) / f"home{trial}"
            texts = build_home(home, "Garble", rng.randrange(2**31))
            queries = [*rng.sample(texts, 8), "nothing stored looks like this"]
            tier = rng.choice(("archival", "recall"))
            how = garble_index(home / f"{tier}.faiss", rng, stored_embedder(home).dim)
            hows[f"{tier}: {how}"] = hows.get(f"{tier}: {how}", 0) + 1
            result.trials += 1
            judge(home, queries, f"trial {trial} ({tier} index, {how})", result)
            shutil.rmtree(home)
    result.figures = {"damage": hows}
    return result


# -- a replaced database -------------------------------------------------------------------
def replaced_database(seed: int, quick: bool, trials: int | None = None) -> FaultResult:
    """Copy another home's database over this one's; the old index must not answer."""
    result = FaultResult("replaced database", "files")
    trials = trials if trials is not None else (2 if quick else 10)
    rng = random.Random(f"{seed}:replaced")
    with tempfile.TemporaryDirectory(prefix="tiermem-replaced-") as tmp:
        for trial in range(trials):
            ours, theirs = Path(tmp) / f"ours{trial}", Path(tmp) / f"theirs{trial}"
            old = build_home(ours, "Cats", rng.randrange(2**31))
            new = build_home(theirs, "Invoices", rng.randrange(2**31))
            for suffix in ("", "-wal", "-shm"):
                (ours / (DB_FILE + suffix)).unlink(missing_ok=True)
            shutil.copy2(theirs / DB_FILE, ours / DB_FILE)
            result.trials += 1
            queries = rng.sample(old, 5) + rng.sample(new, 5)
            judge(ours, queries, f"trial {trial}", result)
    return result


# -- a damaged WAL -------------------------------------------------------------------------
def damage_wal(wal: Path, rng: random.Random) -> str:
    data = bytearray(wal.read_bytes())
    how = rng.choice(("truncated", "flipped bytes", "garbled header", "zeroed tail",
                      "appended garbage"))
    if how == "truncated":
        del data[rng.randrange(0, len(data)):]
    elif how == "flipped bytes":
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(32, len(data))] ^= 1 << rng.randrange(8)
    elif how == "garbled header":
        data[rng.randrange(0, 32)] ^= 0xFF
    elif how == "zeroed tail":
        cut = rng.randrange(32, len(data))
        data[cut:] = bytes(len(data) - cut)
    else:
        data += rng.randbytes(rng.randint(1, 8192))
    wal.write_bytes(bytes(data))
    return how


def crash_image(home: Path, image: Path, rng: random.Random) -> tuple[list[str], int]:
    """Write units to ``home`` and copy its files while the writer is still open: what a
    crash leaves on disk, WAL included. Returns texts to search for and the units written."""
    texts = build_home(home, "Wal", rng.randrange(2**31), passages=10, talks=3)
    units = rng.randint(2, 8)
    memory = open_memory(home)
    try:
        for j in range(units):
            with memory.interaction():
                for k in range(3):
                    texts.append(f"Wal unit {j} part {k}: {durable_sentence(rng)}")
                    memory.archival_insert(texts[-1])
                    memory.add_fact(f"Wal unit {j} fact {k}", "durable")
        shutil.copytree(home, image, ignore=shutil.ignore_patterns("*-shm", "writer.lock"))
    finally:
        memory.close()
    return texts, units


def damaged_wal(seed: int, quick: bool, trials: int | None = None) -> FaultResult:
    """Truncate or garble the WAL of a crashed writer: a clear error or a consistent store."""
    result = FaultResult("damaged WAL", "files")
    trials = trials if trials is not None else (4 if quick else 30)
    rng = random.Random(f"{seed}:wal")
    hows: dict[str, int] = {}
    written = kept = 0
    with tempfile.TemporaryDirectory(prefix="tiermem-wal-") as tmp:
        for trial in range(trials):
            home, image = Path(tmp) / f"home{trial}", Path(tmp) / f"image{trial}"
            texts, units = crash_image(home, image, rng)
            how = damage_wal(image / f"{DB_FILE}-wal", rng)
            hows[how] = hows.get(how, 0) + 1
            result.trials += 1
            judge(image, rng.sample(texts, 8), f"trial {trial} ({how})", result, reopen=False)
            written += units
            kept += _check_units(image, result, f"trial {trial} ({how})")
    # Units after the damage are lost with the WAL: what synchronous=NORMAL can lose.
    result.figures = {"damage": hows, "units_written": written, "units_readable": kept}
    return result


def _check_units(image: Path, result: FaultResult, where: str) -> int:
    """Each unit of three passages and three facts is whole or absent; returns how many
    are whole."""
    try:
        memory: HierarchicalMemory = open_memory(image, stored_embedder(image))
    except Exception:
        return 0  # already counted by judge()
    with memory:
        passages = Counter(text[:11] for _, text in memory.store.passages.texts()
                           if _WAL_PASSAGE.fullmatch(text))
        facts = Counter(f.text[:11] for f in memory.store.facts.all()
                        if f.text.startswith("Wal unit "))
    for prefix, count in sorted(passages.items()):
        if count != 3 or facts.get(prefix) != 3:
            result.diverge(f"{where}: half-written unit {prefix!r}: {count} passages, "
                           f"{facts.get(prefix, 0)} facts")
    return sum(count == 3 and facts.get(prefix) == 3 for prefix, count in passages.items())
