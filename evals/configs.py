"""Memory configurations compared by the LoCoMo evaluation, and how turns are ingested.

Every configuration writes every turn to recall, as ``"Speaker: text"`` with its
session's date as the message time. What else it does:

- ``archival`` layout (bm25, dense, hybrid and their variants): every turn is
  also an archival passage, filed from its recall message (``source_message_id``,
  so the reply to a question ranks beside it: memory.search.replies), searched
  with ``archival_search``. The passage text is the turn followed by a context
  block holding the turn before it in the same session, which full-text search
  sees; the embedding is of the turn alone. Why: conversational evidence is
  often split across a question and its answer ("What did you research?" /
  "Adoption agencies"), and the answer's topic words are in the question. One
  vector for two turns blurs both, and the turn after adds more noise than
  evidence (``--config ablation`` measures both choices).
- ``hierarchy`` layout: the full memory. Each turn is one interaction: the
  turn goes to recall (embedded), and the facts ``extract_facts`` finds in it
  go to core, which evicts to archival when full (``archive_turns`` also files
  every turn in archival). Retrieval is ``query()``, over core, recall and
  archival at once. A fact links the message it was learned from
  (``source_message_id``), so a fact found counts for the turn it came from.

An image turn keeps its BLIP caption in the text (``[shares a photo: ...]``):
some questions are about what was in a picture.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tiermem.evals.locomo import Conversation, Turn
from tiermem.memory import HierarchicalMemory, Hit
from tiermem.memory.embed.embeddings import Embedder, embed_queries
from tiermem.memory.search.fusion import NEAREST_MATCHES, FusionWeights
from tiermem.memory.search.hops import HopSettings
from tiermem.memory.search.query import TIME_POOL
from tiermem.memory.search.temporal import read_time_query, rerank_for_time
from tiermem.memory.text.extract import extract_facts
from tiermem.memory.tiers.archival import NewPassage
from tiermem.memory.tiers.recall import NewMessage

CONTEXT_MARK = "\n\n[context] "
_FACT_SOURCE = re.compile(r"locomo:(D\d+:\d+)")
BATCH = 64


@dataclass(frozen=True)
class MemoryConfig:
    """One column of the experiment matrix."""

    name: str
    description: str
    layout: str = "archival"  # "archival" or "hierarchy"
    search: str = "default"  # "default" (per layout) or "recall": recall_search alone
    archive_turns: bool = False  # hierarchy: also file every turn in archival
    fusion: FusionWeights = field(default_factory=FusionWeights)
    context: str = "previous"  # "none", "previous" or "both" (neighbours in the same session)
    embed_context: bool = False
    captions: bool = True
    dates: bool = False
    # archival layout: re-rank by the question's time (memory.search.temporal)
    time_rerank: bool = False
    # a second retrieval round from the first round's best hits (memory.search.hops)
    hop: HopSettings | None = None
    # each question also searched as a model rewrites it, and fused (memory.search.rewrite)
    rewrite: bool = False
    # archival layout: the passages nearest in meaning that match below the threshold
    nearest: int = NEAREST_MATCHES
    # core's capacity in tokens (``--core-limit``); None: the memory's default
    core_limit: int | None = None

    def as_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        for key in ("name", "description"):
            data.pop(key)
        # Reports written before these options stay resumable.
        for key in ("hop", "rewrite", "core_limit"):
            if not data[key]:
                data.pop(key)
        if self.nearest == NEAREST_MATCHES:
            data.pop("nearest")
        if self.layout == "hierarchy" and not self.archive_turns:
            for key in ("context", "embed_context"):
                data.pop(key)
        return data


def _variant(base: MemoryConfig, name: str, description: str, **changes: Any) -> MemoryConfig:
    return dataclasses.replace(base, name=name, description=description, **changes)


BM25 = MemoryConfig("bm25", "BM25 only (FTS5, Porter)", fusion=FusionWeights(1.0, 0.0))
DENSE = MemoryConfig("dense", "embeddings only", fusion=FusionWeights(0.0, 1.0))
HYBRID = MemoryConfig("hybrid", "BM25 + embeddings, weighted 0.6:0.4 (the engine default)")
HIERARCHY = MemoryConfig("hierarchy", "core + recall + archival through query()",
                         layout="hierarchy")
DEFAULT_CONFIGS = ("bm25", "dense", "hybrid", "hierarchy")

_OLD = FusionWeights(1.0, 0.5, method="rrf", prune_common=False)
ABLATIONS = (
    _variant(BM25, "bm25-no-context", "BM25, one turn per passage", context="none"),
    _variant(DENSE, "dense-no-prune", "embeddings, common words kept in the query",
             fusion=FusionWeights(0.0, 1.0, prune_common=False)),
    _variant(HYBRID, "hybrid-rrf60-plain", "RRF k=60 1:0.5, no pruning, one turn per passage",
             fusion=_OLD, context="none"),
    _variant(HYBRID, "hybrid-weighted-plain", "weighted 0.6:0.4, no pruning, one turn per passage",
             fusion=FusionWeights(prune_common=False), context="none"),
    _variant(HYBRID, "hybrid-no-context", "weighted 0.6:0.4, one turn per passage",
             context="none"),
    _variant(HYBRID, "hybrid-no-prune", "weighted 0.6:0.4, common words kept in the dense query",
             fusion=FusionWeights(prune_common=False)),
    _variant(HYBRID, "hybrid-rrf60", "RRF k=60 1:0.5", fusion=FusionWeights(1.0, 0.5, "rrf")),
    _variant(HYBRID, "hybrid-rrf1", "RRF k=1 1:0.35",
             fusion=FusionWeights(1.0, 0.35, "rrf", rrf_k=1)),
    _variant(HYBRID, "hybrid-lex0.5", "weighted 0.5:0.5", fusion=FusionWeights(0.5, 0.5)),
    _variant(HYBRID, "hybrid-lex0.7", "weighted 0.7:0.3", fusion=FusionWeights(0.7, 0.3)),
    _variant(HYBRID, "hybrid-context-both", "context: the turns before and after",
             context="both"),
    _variant(HYBRID, "hybrid-context-embedded", "context embedded with the turn",
             embed_context=True),
    _variant(HYBRID, "hybrid-no-captions", "image captions left out", captions=False),
    _variant(HYBRID, "hybrid-dates", "session date written into each turn", dates=True),
    _variant(HYBRID, "hybrid-time", "hybrid, re-ranked by the question's time as query() does",
             time_rerank=True),
    _variant(HYBRID, "hybrid-threshold", "hybrid, matches in meaning only at the threshold",
             nearest=0),
    _variant(HYBRID, "hybrid-hop", "hybrid, then a second round from the first's best hits",
             hop=HopSettings()),
    _variant(HIERARCHY, "hierarchy-hop", "query(), then a second round from the first's best hits",
             hop=HopSettings()),
    _variant(HIERARCHY, "hierarchy-rrf60", "the hierarchy with RRF k=60 1:0.5, no pruning",
             fusion=_OLD),
    _variant(HIERARCHY, "hierarchy-recall-only", "the hierarchy's memory, recall_search alone",
             search="recall"),
    _variant(HIERARCHY, "hierarchy-with-turns", "the hierarchy, every turn also in archival",
             archive_turns=True),
)
CONFIGS: dict[str, MemoryConfig] = {
    c.name: c for c in (BM25, DENSE, HYBRID, HIERARCHY, *ABLATIONS)
}


def with_rewrite(config: MemoryConfig) -> MemoryConfig:
    """``config`` with each question also searched as a model rewrites it."""
    return _variant(config, f"{config.name}+rewrite",
                    f"{config.description}; plus up to 3 queries a model wrote", rewrite=True)


#: Names that stand for several configurations in ``--config``, and what each holds.
GROUPS: dict[str, tuple[list[str], str]] = {
    "all": (list(CONFIGS), "every configuration"),
    "ablation": ([c.name for c in ABLATIONS], "every configuration but the defaults (*)"),
}


def resolve_configs(names: Sequence[str] | None) -> list[MemoryConfig]:
    """Configurations by name; ``all`` is every one, ``ablation`` the variants."""
    chosen: dict[str, MemoryConfig] = {}
    for name in names or DEFAULT_CONFIGS:
        group = GROUPS[name][0] if name in GROUPS else [name]
        for item in group:
            if item not in CONFIGS:
                raise ValueError(f"no configuration {item!r}; choose from all, ablation, "
                               + ", ".join(CONFIGS))
            chosen[item] = CONFIGS[item]
    return list(chosen.values())


# -- texts -----------------------------------------------------------------------------------
def turn_text(turn: Turn, captions: bool = True, dates: bool = False) -> str:
    """One turn as stored: who said it kept in the text."""
    text = f"{turn.speaker}: {turn.text}".rstrip()
    if captions and turn.caption:
        text += f" [shares a photo: {turn.caption}]"
    if dates:
        day = dt.datetime.fromtimestamp(turn.created_at, dt.UTC)
        text = f"({day.day} {day:%B %Y}) {text}"
    return text


def passage_text(conv: Conversation, index: int, config: MemoryConfig) -> str:
    """The archival passage of turn ``index``: the turn, then its context block."""
    turn = conv.turns[index]
    own = turn_text(turn, config.captions, config.dates)
    offsets = {"none": (), "previous": (-1,), "both": (-1, 1)}[config.context]
    around = [
        conv.turns[index + o] for o in offsets
        if 0 <= index + o < len(conv.turns) and conv.turns[index + o].session == turn.session
    ]
    if not around:
        return own
    return own + CONTEXT_MARK + "\n".join(turn_text(t, config.captions) for t in around)


def own_words(hit: Hit) -> str:
    """A passage's turn without its context block."""
    return hit.text.split(CONTEXT_MARK, 1)[0]


class TurnOnlyEmbedder:
    """Embeds a passage without its context block; queries as the wrapped embedder does."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.id = inner.id
        self.dim = inner.dim
        self.min_similarity = inner.min_similarity

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_documents([t.split(CONTEXT_MARK, 1)[0] for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        return embed_queries(self.inner, texts)


# -- ingestion and search --------------------------------------------------------------------
class _SessionClock:
    """The memory's wall clock during ingestion: the date of the session being read.

    So facts, evictions and history carry the conversation's dates, not the
    time the evaluation ran.
    """

    def __init__(self, at: float) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


@dataclass
class IngestedMemory:
    """A memory holding one conversation, and how to map its hits back to turns."""

    memory: HierarchicalMemory
    config: MemoryConfig
    seconds: float
    message_turn: dict[int, str] = field(default_factory=dict)  # recall message id -> dia_id
    clock: _SessionClock | None = None

    def search(self, question: str, k: int) -> list[Hit]:
        if self.config.search == "recall":
            return self.memory.recall_search(question, k=k, hop=self.config.hop).hits
        if self.config.layout == "hierarchy":
            # touch=False: each question sees the memory as ingested, whatever came before.
            return self.memory.query(question, k=k, touch=False, hop=self.config.hop)
        if self.config.time_rerank:
            asked = read_time_query(question, self.memory.now())
            pool = self.memory.archival_search(question, k=TIME_POOL * k,
                                               nearest=self.config.nearest).hits
            return rerank_for_time(pool, asked, text_of=own_words)[:k]
        return self.memory.archival_search(question, k=k, hop=self.config.hop,
                                           nearest=self.config.nearest).hits

    def dia_ids(self, hit: Hit) -> list[str]:
        """The turn(s) a hit stands for."""
        if hit.tier == "recall":
            return [self.message_turn[hit.id]] if hit.id in self.message_turn else []
        if "dia_id" in hit.metadata:
            return [str(hit.metadata["dia_id"])]
        fact = self.memory.fact(hit.fact_id) if hit.fact_id is not None else None
        if fact is None:
            return []
        if fact.source_message_id in self.message_turn:
            return [self.message_turn[fact.source_message_id]]
        return _FACT_SOURCE.findall(fact.source)

    def close(self) -> None:
        self.memory.close()


def ingest(
    conv: Conversation,
    config: MemoryConfig,
    embedder: Embedder,
    advance: Callable[[int], None] = lambda n: None,
) -> IngestedMemory:
    """Build an in-memory store holding ``conv`` the way ``config`` says."""
    started = time.perf_counter()
    hierarchy = config.layout == "hierarchy"
    # Texts without a context block (messages, facts) embed as they are either way.
    used = embedder if config.embed_context else TurnOnlyEmbedder(embedder)
    clock = _SessionClock(conv.turns[0].created_at if conv.turns else 0.0)
    memory = HierarchicalMemory(None, embedder=used, fusion=config.fusion, recall_dense=hierarchy,
                                now=clock, core_limit=config.core_limit)
    result = IngestedMemory(memory, config, 0.0, clock=clock)
    try:
        if hierarchy:
            _ingest_hierarchy(conv, result, advance)
        else:
            _ingest_archival(conv, result, advance)
    except BaseException:
        memory.close()
        raise
    # Questions are asked after the conversation: "last May" is relative to its last session.
    clock.at = max((t.created_at for t in conv.turns), default=clock.at)
    result.seconds = time.perf_counter() - started
    return result


def _ingest_archival(conv: Conversation, into: IngestedMemory, advance: Callable[[int], None]
                     ) -> None:
    memory, config = into.memory, into.config
    for start in range(0, len(conv.turns), BATCH):
        turns = conv.turns[start : start + BATCH]
        with memory.interaction() as tick:
            ids = memory.recall.append_many([
                NewMessage("user", turn_text(t, config.captions), tick, created_at=t.created_at)
                for t in turns])
            into.message_turn.update(zip(ids, (t.dia_id for t in turns), strict=True))
            memory.archival.insert_many([
                NewPassage(text=passage_text(conv, start + i, config), created_at=t.created_at,
                           metadata={"dia_id": t.dia_id, "conversation": conv.id},
                           source=f"locomo:{t.dia_id}", source_message_id=message_id)
                for i, (t, message_id) in enumerate(zip(turns, ids, strict=True))])
        advance(len(turns))


def _ingest_hierarchy(conv: Conversation, into: IngestedMemory,
                      advance: Callable[[int], None]) -> None:
    memory, config = into.memory, into.config
    for index, turn in enumerate(conv.turns):
        if into.clock is not None:
            into.clock.at = turn.created_at
        with memory.interaction() as tick:
            ids = memory.recall.append_many([NewMessage(
                "user", turn_text(turn, config.captions, config.dates), tick,
                created_at=turn.created_at)])
            into.message_turn[ids[0]] = turn.dia_id
            if config.archive_turns:
                memory.archival.insert_many([NewPassage(
                    text=passage_text(conv, index, config), created_at=turn.created_at,
                    metadata={"dia_id": turn.dia_id, "conversation": conv.id},
                    source=f"locomo:{turn.dia_id}", source_message_id=ids[0])])
            for fact in extract_facts(turn.text, speaker=turn.speaker):
                # One larger than all of core is filed in archival, as process_interaction's are.
                memory.add_fact(fact.text, fact.durability, source=f"locomo:{turn.dia_id}",
                                source_message_id=ids[0])
        advance(1)
