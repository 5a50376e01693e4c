"""The 8-bit prefilter on real sentence embeddings: does it return a float32 scan's answers?

Run: ``python -m bench.prefilter_check --data ../shared/data/locomo [--json PATH]``

Every LoCoMo turn and question of the given files is embedded with the
offline default model (all-MiniLM-L6-v2 int8). The turns go into a dense
index with the prefilter forced on, and each question is searched both ways:
top 10, and every turn at or above the model's match threshold. The prefilter
is exact by construction (memory/store/sqlite/prefilter.py); this measures it on the
vectors users store rather than on synthetic ones. The same questions are also
searched through the HNSW graph (``vector_index="hnsw"``, memory/store/sqlite/graph.py),
which is approximate: its top 10, and the top 10 of the short nearest list
hybrid search takes from it (``APPROXIMATE_DENSE_WINDOW``), against the exact top 10.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tiermem.evals.locomo import load_conversations
from tiermem.memory.embed.minilm import MiniLMEmbedder
from tiermem.memory.output_file import write_atomic
from tiermem.memory.search.fusion import APPROXIMATE_DENSE_WINDOW
from tiermem.memory.store.sqlite import SQLiteStore
from tiermem.memory.store.sqlite.vectors import FaissIndex


def check(data: Path) -> dict[str, Any]:
    conversations = load_conversations([data])
    turns = [t.text for c in conversations for t in c.turns]
    questions = [q.question for c in conversations for q in c.questions]
    embedder = MiniLMEmbedder()
    rows = embedder.embed_documents(turns)
    index = FaissIndex(SQLiteStore(None), "passages", embedder.dim, None, prefilter_min_rows=0)
    with index.store.transaction():
        index.add(np.arange(len(rows), dtype=np.int64), rows)
    graph = FaissIndex(SQLiteStore(None), "passages", embedder.dim, None, vector_index="hnsw")
    with graph.store.transaction():
        graph.add(np.arange(len(rows), dtype=np.int64), rows)
    found, same_above, candidates, matches = 0, 0, [], []
    graph_found, window_found = 0, 0
    for text in questions:
        q = embedder.embed_query(text)
        exact = np.einsum("ij,j->i", rows, q)
        best = set(np.argsort(-exact, kind="stable")[:10].tolist())
        found += len(best & set(index.search(q, 10)[0].tolist()))
        graph_found += len(best & set(graph.search(q, 10)[0].tolist()))
        window_found += len(best & set(graph.nearest(q, APPROXIMATE_DENSE_WINDOW)[0][:10].tolist()))
        above = set(index.above(q, embedder.min_similarity)[0].tolist())
        same_above += above == set(np.nonzero(exact >= embedder.min_similarity)[0].tolist())
        assert index.prefilter is not None
        candidates.append(len(index.prefilter.above(q[None, :], embedder.min_similarity)))
        matches.append(len(above))
    assert index.prefilter is not None
    return {
        "conversations": [c.id for c in conversations], "turns": len(turns),
        "questions": len(questions), "embedder": embedder.id,
        "error_bound": index.prefilter.error_bound,
        "recall_at_10_vs_float_scan": found / (10 * len(questions)),
        "above_threshold_identical": same_above / len(questions),
        "threshold": embedder.min_similarity,
        "matches_p50": statistics.median(matches),
        "candidates_p50": statistics.median(candidates),
        "hnsw_recall_at_10": graph_found / (10 * len(questions)),
        "hnsw_window_recall_at_10": window_found / (10 * len(questions)),
        "hnsw_ef_search": graph.ef_search,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, required=True,
                        help="a LoCoMo JSON file or a directory of them")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    report = check(args.data)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json is not None:
        write_atomic(args.json, text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
