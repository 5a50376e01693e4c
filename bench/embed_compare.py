"""Offline embedders side by side: throughput, query latency, memory and similarity scale.

    nice -n 10 python -m bench.embed_compare --data ../shared/data/locomo \\
        --embedders local e5-small-q4 e5-small-enpt-q4 paraphrase-l3

Documents are LoCoMo's turns as stored (``Speaker: text``, conversations 26 and
30 by default). Throughput is the median of ``--repeats`` passes over every
turn, the models taking turns within each pass, so a busy neighbour slows all
of them alike; the ratio to the first embedder is the figure to compare.
Memory is measured in a fresh process per model: its peak resident set after
loading the model and embedding every turn, less its resident set before.

The similarity scale: for each conversation, the cosine that 88% of its
questions' evidence turns reach (MiniLM's 0.3 ``min_similarity`` was set by
that rule), and the median cosine of the other turns, so a floor for a new
model can be chosen the same way.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from tiermem.evals.configs import turn_text
from tiermem.evals.embedders import EMBEDDERS, make_embedder
from tiermem.evals.locomo import Conversation, load_conversations, select
from tiermem.memory.embed.embeddings import Embedder

EVIDENCE_SHARE = 0.88
QUERY_SAMPLE = 100


def _resident_kib(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def memory_of(name: str, texts: Sequence[str]) -> dict[str, float]:
    """Run in a fresh process: resident MiB before, and peak growth from loading and embedding."""
    embedder = make_embedder(name)
    before = _resident_kib("VmRSS")
    started = time.perf_counter()
    embedder.embed_documents(texts[:1])
    load = time.perf_counter() - started
    embedder.embed_documents(texts)
    return {"rss_before_mib": before / 1024, "peak_delta_mib": (_resident_kib("VmHWM") - before)
            / 1024, "first_call_s": load}


def similarity_scale(embedder: Embedder, conv: Conversation) -> dict[str, float]:
    texts = [turn_text(t) for t in conv.turns]
    index = {t.dia_id: i for i, t in enumerate(conv.turns)}
    docs = embedder.embed_documents(texts)
    evidence: list[float] = []
    others: list[float] = []
    for question in conv.scored_questions():
        cos = docs @ embedder.embed_query(question.question)
        rows = {index[d] for d in question.evidence if d in index}
        evidence.extend(float(cos[r]) for r in rows)
        others.extend(float(c) for r, c in enumerate(cos) if r not in rows)
    return {"evidence_88pct_reach": float(np.quantile(evidence, 1 - EVIDENCE_SHARE)),
            "evidence_median": float(np.median(evidence)),
            "other_median": float(np.median(others))}


def compare(names: Sequence[str], conversations: Sequence[Conversation], repeats: int
            ) -> dict[str, Any]:
    texts = [turn_text(t) for c in conversations for t in c.turns]
    questions = [q.question for c in conversations for q in c.scored_questions()][:QUERY_SAMPLE]
    embedders = {name: make_embedder(name) for name in names}
    for embedder in embedders.values():
        embedder.embed_documents(texts[:8])  # load outside the timing
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(repeats):
        for name, embedder in embedders.items():
            started = time.perf_counter()
            embedder.embed_documents(texts)
            seconds[name].append(time.perf_counter() - started)
    results: dict[str, Any] = {}
    for name, embedder in embedders.items():
        latencies = []
        for question in questions:
            started = time.perf_counter()
            embedder.embed_documents([question])  # embed_query may cache
            latencies.append((time.perf_counter() - started) * 1000)
        child = subprocess.run([sys.executable, "-m", "tiermem.bench.embed_compare",
                                "--memory-of", name,
                                "--data", *ARGS_DATA, "--conversations",
                                ",".join(c.id for c in conversations)],
                               check=True, capture_output=True, text=True)
        results[name] = {
            "id": embedder.id, "dim": embedder.dim, "texts": len(texts),
            "sentences_per_s": len(texts) / statistics.median(seconds[name]),
            "passes_s": [round(s, 2) for s in seconds[name]],
            "query_ms_p50": statistics.median(latencies),
            **json.loads(child.stdout),
            "scale": {c.id: similarity_scale(embedder, c) for c in conversations},
        }
    return results


ARGS_DATA: list[str] = []


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data", nargs="+", required=True)
    parser.add_argument("--conversations", default="26,30")
    parser.add_argument("--embedders", nargs="+", default=["local", "e5-small-q4"],
                        choices=tuple(EMBEDDERS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory-of", choices=tuple(EMBEDDERS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    ARGS_DATA[:] = args.data
    conversations = select(load_conversations(args.data), args.conversations.split(","))
    if args.memory_of:
        texts = [turn_text(t) for c in conversations for t in c.turns]
        print(json.dumps(memory_of(args.memory_of, texts)))
        return 0
    print(json.dumps(compare(args.embedders, conversations, args.repeats), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
