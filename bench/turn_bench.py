"""The runtime's own cost per agent turn, with model and embedding time taken out.

Run: ``python -m bench.turn_bench [--passages 10000] [--messages 100000] [--turns 200]``

A store is filled with synthetic archival passages and recall messages, then
the same agent runs ``--turns`` turns twice, side by side: with the offline
policy and with a scripted model (append a fact, search archival, reply).
Each turn's wall time is split into model time (inside ``complete``), embedding
time (inside the embedder) and the rest, which is tiermem's overhead. It also
prints the system prompt's token count with an empty and with a full core.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tiermem.agent.context import ContextWindow
from tiermem.agent.llm import Completion, LLMClient, ToolCall
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.system_message import render_core
from tiermem.memory import HierarchicalMemory
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.output_file import write_atomic
from tiermem.memory.tiers.archival import NewPassage
from tiermem.memory.tiers.recall import NewMessage
from tiermem.tools.memory_tools import memory_toolbox

TOPICS = ("deploy", "billing", "allergy", "region", "invoice", "rotation", "garden", "flight",
          "recipe", "ticket", "database", "cache", "kitten", "marathon", "museum", "guitar")


class TimedEmbedder:
    """Wraps an embedder and adds up the seconds spent inside it."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.id, self.dim = inner, inner.id, inner.dim
        self.min_similarity = inner.min_similarity
        self.seconds = 0.0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        start = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - start

    def embed_query(self, text: str) -> np.ndarray:
        start = time.perf_counter()
        try:
            return self.inner.embed_query(text)
        finally:
            self.seconds += time.perf_counter() - start


class TimedModel:
    """Wraps an LLM client and adds up the seconds spent inside ``complete``."""

    def __init__(self, inner: LLMClient) -> None:
        self.inner, self.name = inner, inner.name
        self.context_window = inner.context_window
        self.seconds = 0.0

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        start = time.perf_counter()
        try:
            return self.inner.complete(messages, tools)
        finally:
            self.seconds += time.perf_counter() - start


class CyclingScript:
    """A scripted model that repeats: append a fact, search archival, reply."""

    name = "scripted"
    context_window = 128_000

    def __init__(self) -> None:
        self.step = 0

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        self.step += 1
        n, phase = divmod(self.step - 1, 3)
        calls = {
            0: ToolCall(f"c{self.step}", "core_memory_append", json.dumps(
                {"content": f"Fact {n} about the {TOPICS[n % len(TOPICS)]} team",
                 "durability": "short-lived", "request_heartbeat": True})),
            1: ToolCall(f"c{self.step}", "archival_memory_search", json.dumps(
                {"query": f"{TOPICS[n % len(TOPICS)]} notes", "request_heartbeat": True})),
            2: ToolCall(f"c{self.step}", "send_message", json.dumps({"message": f"Done {n}."})),
        }
        return Completion(content=None, tool_calls=[calls[phase]])


def sentence(rng: random.Random, words: int = 18) -> str:
    return " ".join(rng.choice(TOPICS) + str(rng.randrange(500)) for _ in range(words))


def fill(memory: HierarchicalMemory, passages: int, messages: int, seed: int) -> None:
    rng = random.Random(seed)
    for start in range(0, passages, 2000):
        memory.archival.insert_many([NewPassage(text=sentence(rng))
                                     for _ in range(min(2000, passages - start))])
    for start in range(0, messages, 5000):
        memory.recall.append_many([NewMessage(role=rng.choice(("user", "assistant")),
                                              content=sentence(rng), turn=0)
                                   for _ in range(min(5000, messages - start))])


def run_turns(agent: Agent, model: TimedModel, embedder: TimedEmbedder, turns: int,
              texts: list[str]) -> dict[str, Any]:
    overheads, totals = [], []
    for i in range(turns):
        model.seconds = embedder.seconds = 0.0
        start = time.perf_counter()
        agent.step(texts[i % len(texts)])
        total = time.perf_counter() - start
        totals.append(total)
        overheads.append(total - model.seconds - embedder.seconds)
    return {
        "turns": turns,
        "overhead_p50_ms": 1000 * statistics.median(overheads),
        "overhead_p90_ms": 1000 * sorted(overheads)[int(0.9 * len(overheads))],
        "wall_p50_ms": 1000 * statistics.median(totals),
    }


def prompt_tokens(core_limit: int) -> dict[str, int]:
    """System prompt tokens (with core rendered) for an empty and a full core."""
    memory = HierarchicalMemory(None, core_limit=core_limit, embedder=HashingEmbedder(),
                                recall_dense=False)
    window = ContextWindow(window=128_000, counter=memory.tokenizer)
    tools = memory_toolbox().schemas()
    empty = window.build(memory, tools)[0][0]["content"]
    rng = random.Random(3)
    while memory.core.used < core_limit - 30:
        memory.add_fact(f"The {rng.choice(TOPICS)} owner for team {rng.randrange(10**6)} is "
                        f"{rng.choice(('Alice', 'Bob', 'Chen', 'Dana'))}", "durable")
    full = window.build(memory, tools)[0][0]["content"]
    count = memory.tokenizer.count
    result = {"system_prompt_empty_core": count(empty), "system_prompt_full_core": count(full),
              "core_block_full": count(render_core(memory)), "core_used": memory.core.used,
              "tool_schemas": count(json.dumps(tools))}
    memory.close()
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="agent turn overhead")
    parser.add_argument("--passages", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--core-limit", type=int, default=2000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    report: dict[str, Any] = {"passages": args.passages, "messages": args.messages}
    with tempfile.TemporaryDirectory() as tmp:
        embedder = TimedEmbedder(HashingEmbedder(384))
        runs: dict[str, list[dict[str, Any]]] = {"offline": [], "scripted": []}
        for name in runs:
            home = Path(tmp) / name
            with HierarchicalMemory(home, core_limit=args.core_limit, embedder=embedder) as mem:
                fill(mem, args.passages, args.messages, seed=1)
            print(f"{name}: store filled", file=sys.stderr, flush=True)
        rng = random.Random(2)
        texts = [f"The {rng.choice(TOPICS)} lead is {rng.choice(('Ann', 'Raj', 'Mo'))}. "
                 f"Where is the {rng.choice(TOPICS)} runbook?" for _ in range(50)]
        # Interleave blocks of turns so machine noise hits both runtimes alike.
        block = max(1, args.turns // 4)
        for _ in range(4):
            for name in runs:
                with HierarchicalMemory(Path(tmp) / name, embedder=embedder) as mem:
                    inner: LLMClient = OfflinePolicy() if name == "offline" else CyclingScript()
                    model = TimedModel(inner)
                    runs[name].append(run_turns(Agent(mem, model), model, embedder, block, texts))
        for name, blocks in runs.items():
            report[name] = {
                "turns": sum(b["turns"] for b in blocks),
                "overhead_p50_ms": statistics.median(b["overhead_p50_ms"] for b in blocks),
                "overhead_p90_ms": statistics.median(b["overhead_p90_ms"] for b in blocks),
                "wall_p50_ms": statistics.median(b["wall_p50_ms"] for b in blocks),
            }
    report["prompt_tokens"] = prompt_tokens(args.core_limit)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        write_atomic(args.json, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
