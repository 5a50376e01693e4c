"""A memory writer for the crash-safety check; the battery SIGKILLs it mid-operation.

Run: ``python -m bench.crash_child HOME SEED ROUND POLICY``. It speaks the
protocol of bench/kill_after_ops.py: ``READY`` once the memory is open, then
one line ``KIND MARKER`` after each operation returns, that is, after its
transaction committed. Every text it writes carries ``[MARKER]`` so the parent
can look the operation up after the kill.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence

from tiermem.bench.kill_after_ops import READY
from tiermem.bench.workload import durable_sentence, short_lived_sentence
from tiermem.memory import HashingEmbedder, HierarchicalMemory

CORE_LIMIT = 120
BATCH_FACTS = 12
BATCH_PASSAGES = 6


def batch_fact(marker: str, j: int) -> str:
    return f"crash batch [{marker}] item {j}"


def batch_passage(marker: str, j: int) -> str:
    return f"crash batch passage [{marker}] part {j}"


def _open(home: str, policy: str) -> HierarchicalMemory:
    return HierarchicalMemory(home, core_limit=CORE_LIMIT, policy=policy,
                              embedder=HashingEmbedder())


def run(home: str, seed: int, round_no: int, policy: str) -> None:
    rng = random.Random(seed)
    memory = _open(home, policy)
    memory.tokenizer.count("load the tokenizer before the first operation")
    print(READY, flush=True)
    for i in range(10**9):
        marker = f"r{round_no}n{i}"
        kind = rng.choice(("fact", "passage", "turn", "batch"))
        if kind == "fact":
            durability = rng.choice(("durable", "short-lived"))
            memory.add_fact(f"crash fact [{marker}] {short_lived_sentence(rng)}", durability)
        elif kind == "passage":
            memory.archival_insert(f"crash passage [{marker}] {durable_sentence(rng)}",
                                   tags=["crash"])
        elif kind == "turn":
            memory.process_interaction(
                f"Right now the [{marker}] pod is restarting. "
                f"The production region for [{marker}] is eu-west-1.", "Noted.")
        else:
            # One interaction: all of it is committed, or none of it.
            with memory.interaction():
                for j in range(BATCH_FACTS):
                    memory.add_fact(batch_fact(marker, j), rng.choice(("durable", "short-lived")))
                    if j < BATCH_PASSAGES:
                        memory.archival_insert(batch_passage(marker, j))
        print(f"{kind} {marker}", flush=True)
        if rng.random() < 0.04:
            # Closing saves the FAISS index files, so some kills land while they are written.
            memory.close()
            memory = _open(home, policy)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    home, seed, round_no, policy = args[0], int(args[1]), int(args[2]), args[3]
    run(home, seed, round_no, policy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
