"""Search across all three tiers: one ranking of core, archival and recall hits.

Owns ``HierarchicalMemory.query``. Every tier is scored with the same hybrid
formula (memory.search.fusion_scores): core facts from their BM25 among core's matches and
the cosine of their text's embedding, which is kept in memory (core is
bounded) and recomputed only when a fact's text changes.

The tiers' candidates are then put on one scale. A tier's own search divides
BM25 by its best match and cosines by its nearest row, so the first hit of
every tier scores about 1, a weak one included: a fact sharing only a name
with the question stood level with the message that answers it. Here each
candidate is re-fused from its own BM25 and cosine, divided by the best BM25
and the nearest cosine among the candidates of all tiers. On LoCoMo's two dev
conversations this raised the hierarchy's R@1 from 0.305 to 0.366 and R@10
from 0.596 to 0.649, on each conversation (README "Evaluation"); nothing was
tuned for it.

The best ``k`` hits of all tiers are returned, in score order, with one exception: a *strong*
core match is never cut by ``k``. It takes the place of the weakest hit that
is not one; if more than ``k`` core facts match strongly, the ``k`` best are
kept. A core fact matches strongly when it

- holds every content word of the query (as full-text search stems them), or
- has an embedding at least ``strong_similarity(embedder)`` from the
  query's (memory.embed.embeddings; 0.79 for MiniLM).

Each test needs its list: a fusion weight of 0 turns it off.

Why not every match, as a row of any tier matches (a shared word, or a cosine
of ``min_similarity``)? Such matches include facts that share only a name with
the query. On LoCoMo (README "Evaluation"), where every extracted fact starts
with its speaker's name, 54 to 68 of some 185 core facts matched a question
on average; listed ahead of other tiers they pushed out the evidence (R@10
0.20, against 0.595 with only strong matches kept). Strong matches keep their
place in score order: listed first, they cost 0.005 at R@10.

Facts then yield to the turns they came from, and the reply to a question among the
first hits is lifted, before the re-ranking by time below (memory/search/evidence.py:
``FACT_WEIGHT``, ``SOURCE_BONUS``, ``REPLY_SHARE``). Forget's candidate list does not
merge (``Tiers.by_source``): each item there is a thing to delete.

A question about time ("When did ...", "... last May") is re-ranked by it
(memory.search.temporal): each tier gives ``TIME_POOL`` times ``k`` hits, and those
stored in the range the question names, or stating a time for a
when-question, are lifted before the best ``k`` are kept. Dates resolve
against the memory's clock (``now``).

The hierarchy validates the query first, and counts as used only the facts among
the hits that the query matches strongly (``strong_matches``, applied to archived
facts too; memory.ops.searches.facts_about). Core's are the very facts the search
pinned as strong (``TierRanking``), whatever the fusion: hits ranked by reciprocal
ranks carry no similarity to test again, and a search without a lexical side pins
none by its words. ``query_tiers`` takes the pieces it
searches, not the hierarchy: the core tier with its embeddings, the full-text index
of facts, archival's and recall's searches.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tiermem.memory.embed.embeddings import Embedder, embed_queries, strong_similarity
from tiermem.memory.search.evidence import (
    FACT_WEIGHT,
    Replies,
    facts_with_their_sources,
    with_replies,
)
from tiermem.memory.search.fusion import query_terms
from tiermem.memory.search.fusion_scores import MIN_SCORE, rank_scored
from tiermem.memory.search.fusion_weights import FusionWeights
from tiermem.memory.search.temporal import read_time_query, rerank_for_time
from tiermem.memory.store.contract import LexicalIndex
from tiermem.memory.tiers.core import CoreTier
from tiermem.memory.types import Fact, Hit, SearchResult

#: A tier's search: (query, k, the embedder to embed the query with) to the first page of
#: its hits.
TierSearch = Callable[[str, int, Embedder], SearchResult]

#: How many times ``k`` hits each tier gives a question about time, to re-rank.
TIME_POOL = 3


class CoreVectors:
    """Embeddings of the facts in core, by id, each kept while the fact's text is unchanged."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._keys: list[tuple[int, str]] = []
        self._matrix = np.zeros((0, embedder.dim), dtype=np.float32)

    def matrix(self, facts: Sequence[Fact]) -> np.ndarray:
        """One row per fact of ``facts``, in order; only new or edited texts are embedded."""
        keys = [(f.id, f.text) for f in facts]
        if keys == self._keys:
            return self._matrix
        known = dict(zip(self._keys, self._matrix, strict=True))
        missing = [key for key in keys if key not in known]
        if missing:
            fresh = self.embedder.embed_documents([text for _, text in missing])
            known.update(zip(missing, fresh, strict=True))
        self._keys = keys
        self._matrix = (np.stack([known[key] for key in keys]) if keys
                        else np.zeros((0, self.embedder.dim), dtype=np.float32))
        return self._matrix


class QueryEmbeddings:
    """The embedder of one search across the tiers: each text is embedded once, however
    many tiers ask for it.

    Core embeds the query as written; archival and recall each leave out the words
    common to their own rows first (memory.search.lexical), which on LoCoMo drops the
    speaker's name from recall's text alone. Giving every tier one embedding instead
    (the query's, or recall's) cost 0.005 to 0.04 of R@10 on each dev conversation
    (README "Evaluation"), so each tier keeps its text, and a text two tiers share is
    embedded once. The texts known before the tiers are searched run through the model
    together (``prefetch``): two texts in one batch cost about 1.6 runs of one.
    """

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.id, self.dim = embedder.id, embedder.dim
        self.min_similarity = embedder.min_similarity
        self._vectors: dict[str, np.ndarray] = {}

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed_documents(texts)

    def prefetch(self, texts: Sequence[str]) -> None:
        """Embed the ``texts`` not embedded yet, in one call (``embed_queries``)."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            self._vectors.update(zip(missing, embed_queries(self.embedder, missing),
                                     strict=True))

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self._vectors:
            self._vectors[text] = self.embedder.embed_query(text)
        return self._vectors[text]


@dataclass(frozen=True)
class Tiers:
    """What a search across the tiers reads."""

    core: CoreTier
    core_vectors: CoreVectors
    facts_text: LexicalIndex
    archival: TierSearch
    recall: TierSearch
    embedder: Embedder
    fusion: FusionWeights
    #: Whether recall is searched by meaning too (it keeps vectors of its messages).
    recall_by_meaning: bool = True
    #: Core's hits that may be shown (a privacy policy's recall layer); None: all of them.
    core_shown: Callable[[list[Hit]], list[Hit]] | None = None
    #: Rank for evidence: facts weigh ``FACT_WEIGHT`` and take one place with the message
    #: they were learned from. False ranks every item on its own (each is a candidate to
    #: delete, as forget's selection needs).
    by_source: bool = True
    #: The texts archival's and recall's searches embed for a query (each leaves out
    #: words common to its own rows), embedded with core's in one batch; None: each
    #: search embeds its own when it runs.
    dense_queries: Callable[[str], list[str]] | None = None
    #: The replies to the hits that are questions (memory.search.replies): for each given
    #: hit's position, the id of the message that replies to it and that message as a
    #: recall hit; it is also given the message each fact among the candidates was learned
    #: from (fact id to message id). None: replies are not lifted (forget's selection).
    replies: Replies | None = None


@dataclass(frozen=True)
class TierRanking:
    """The hits of a search across the tiers, and what it learned of core on the way."""

    hits: list[Hit]
    #: The core facts the search pinned as strong matches (module docstring), or None when
    #: it did not decide them alone (a second round). Touching the hits counts these, so
    #: what counts as used is what ``query()`` kept for being strong, with no second test.
    core_strong: frozenset[int] | None


def query_tiers(tiers: Tiers, q: str, k: int, now: float) -> list[Hit]:
    """The best ``k`` hits of all tiers in score order, none of core's strong matches left
    out; dates in ``q`` resolve against ``now``."""
    return rank_tiers(tiers, q, k, now).hits


def rank_tiers(tiers: Tiers, q: str, k: int, now: float) -> TierRanking:
    """``query_tiers``, with the core facts it pinned as strong matches of ``q``."""
    embeddings = QueryEmbeddings(tiers.embedder)
    if tiers.dense_queries is not None:
        core_embeds = len(tiers.core) and tiers.fusion.dense > 0
        embeddings.prefetch(([q] if core_embeds else []) + tiers.dense_queries(q))
    core_hits, strong = _core_hits(tiers, q, embeddings)
    if tiers.core_shown is not None:
        core_hits = tiers.core_shown(core_hits)
    in_core = {h.fact_id for h in core_hits}
    facts = [tiers.core.get(h.id) for h in core_hits]
    # A core fact's archived passage is the same fact, dropped below: ask for that many more.
    archived = sum(1 for f in facts if f is not None and f.passage_id is not None)
    # A question about time re-ranks by it (memory.search.temporal): give it more hits to lift.
    asked = read_time_query(q, now)
    pool = TIME_POOL * k if asked.active else k
    archival = tiers.archival(q, min(pool + archived, 1000), embeddings)
    recall = tiers.recall(q, min(pool, 1000), embeddings)
    ranked = core_hits + [
        h for h in archival.hits if h.fact_id is None or h.fact_id not in in_core
    ] + recall.hits
    _on_one_scale(ranked, tiers, words=bool(query_terms(q)))
    if tiers.by_source:
        for hit in ranked:
            if hit.fact_id is not None:
                hit.score *= FACT_WEIGHT
    ranked.sort(key=lambda h: -h.score)  # stable: on a tie, core's hit comes first
    # The message each fact was learned from, read once: lifting replies adds messages only.
    sources = tiers.core.source_messages(
        h.fact_id for h in ranked if h.fact_id is not None
    ) if tiers.replies is not None or tiers.by_source else {}
    if tiers.replies is not None:  # before the time: a reply is judged by its own date
        ranked = with_replies(ranked, sources, tiers.replies)
    ranked = rerank_for_time(ranked, asked)
    if tiers.by_source:
        ranked = facts_with_their_sources(ranked, sources, strong)
    # The best k strong matches claim their places; the other places go by score.
    strong_hits = [h for h in ranked if h.tier == "core" and h.id in strong][:k]
    chosen = {id(h) for h in strong_hits}
    others = [h for h in ranked if id(h) not in chosen]
    chosen.update(id(h) for h in others[: k - len(strong_hits)])
    return TierRanking([h for h in ranked if id(h) in chosen], frozenset(strong))


def _on_one_scale(hits: list[Hit], tiers: Tiers, words: bool) -> None:
    """Re-score the candidates of every tier with one normaliser (module docstring).

    Each tier's own search scales BM25 by its best match and cosines by its
    nearest, so every tier's first hit scores about 1 however weak it is.
    Here the normalisers are the best BM25 and the nearest cosine among all
    candidates, and each hit is fused from its own two scores with the tier's
    weights (a tier not searched by meaning weighs words alone, as its search did).
    """
    fusion = tiers.fusion
    if fusion.method == "rrf" or not hits:
        return
    floor = max(tiers.embedder.min_similarity, 0.0)
    best = max(h.relevance for h in hits)
    cosines = [h.similarity for h in hits if h.similarity is not None]
    span = max(max(cosines) - floor, floor) if cosines else 0.0
    w_lex = fusion.lexical if words else 0.0
    for hit in hits:
        w_dense = fusion.dense if hit.tier != "recall" or tiers.recall_by_meaning else 0.0
        if w_lex + w_dense <= 0:
            continue
        lexical = hit.relevance / best if best > 0 else 0.0
        near = ((hit.similarity - floor) / span
                if hit.similarity is not None and span > 0 else 0.0)
        hit.score = max((w_lex * lexical + w_dense * near) / (w_lex + w_dense), MIN_SCORE)


def _core_hits(tiers: Tiers, q: str, embeddings: QueryEmbeddings
               ) -> tuple[list[Hit], set[int]]:
    """Every core fact that matches ``q``, scored as hybrid search scores, best first,
    and the ids of the strong matches among them."""
    core = tiers.core
    if not len(core):
        return [], set()
    fusion = tiers.fusion
    terms = query_terms(q) if fusion.lexical > 0 else []
    lexical: dict[int, float] = {}
    if terms:
        # Only core's facts are scored, not the archived ones: a join on the tier cost 8 ms
        # a query, and scoring every fact grows with the archive.
        lexical = tiers.facts_text.scores(terms, among=core.ids())
    dense: dict[int, float] = {}
    embedder = tiers.embedder
    if fusion.dense > 0:
        facts = core.held()
        cosines = tiers.core_vectors.matrix(facts) @ embeddings.embed_query(q)
        near = np.flatnonzero(cosines >= embedder.min_similarity)
        dense = dict(zip([facts[i].id for i in near.tolist()], cosines[near].tolist(),
                         strict=True))
    every = holding_every_term(tiers.facts_text, terms, lexical, holding_one=True)
    strong = strong_matches(tiers.facts_text, terms, dense, strong_similarity(embedder),
                            every=every)
    ranked = rank_scored(lexical, dense, embedder.min_similarity, fusion,
                         lexical_on=bool(terms), dense_on=fusion.dense > 0)
    hits = []
    for r in ranked:
        fact = core.get(r.id)
        if fact is not None:
            hits.append(Hit(text=fact.text, tier="core", score=r.score,
                            created_at=fact.created_at, id=fact.id, fact_id=fact.id,
                            durability=fact.durability, relevance=r.relevance,
                            similarity=r.similarity))
    return hits, strong


def strong_matches(lexical: LexicalIndex, terms: Sequence[str],
                   cosines: Mapping[int, float | None], close: float,
                   every: Collection[int] | None = None) -> set[int]:
    """The rows a query matches strongly (module docstring): those that hold every one of
    its ``terms`` in ``lexical``, and those of ``cosines`` (row id to its cosine with the
    query; None: not compared) at least ``close`` to it.

    ``every`` names the rows known to hold every term, when the caller has tested them
    already (``holding_every_term``); without it, the rows of ``cosines`` are tested.
    """
    if every is None:
        every = holding_every_term(lexical, terms, list(cosines))
    return set(every) | {i for i, c in cosines.items() if c is not None and c >= close}


def holding_every_term(lexical: LexicalIndex, terms: Sequence[str], among: Collection[int],
                       holding_one: bool = False) -> set[int]:
    """The rows of ``among`` that hold every one of ``terms`` in ``lexical``. With
    ``holding_one``, each of ``among`` is known to hold one of them: with a single term,
    they all do, and nothing is looked up."""
    if not terms or not among:
        return set()
    if len(terms) == 1 and holding_one:
        return set(among)
    return set(lexical.scores(terms, every_term=True, among=list(among)))
