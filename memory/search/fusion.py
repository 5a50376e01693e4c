"""Hybrid retrieval: full-text search (BM25; FTS5 on SQLite) fused with dense search.

A row *matches* a query when it shares a content word with it (FTS5) or its
embedding is at least ``embedder.min_similarity`` from the query's. ``total``
counts every match that passes the filters, so callers can page.

With a ``window`` (recall passes one; archival does not), BM25 ranks only the
newest ``window`` rows that match the words, and ``total`` is then a lower
bound (``exact`` is False): there are more matches than were ranked. Scoring
and counting every match costs time in proportion to the matches (2.5 s at
1M messages for a word in most of them); finding the window is a walk down
the rowid-ordered posting lists with no scoring, and FTS5 seeks the BM25 query
straight to the window's rowid range. Below the window nothing changes:
ranking and totals are exact. BM25 keeps its idf and average length from the
whole table, so the window's rows are ranked as they would be among all
matches. A dense match older than the window is ranked by its dense score
alone, since its BM25 is not read. A page deeper than the window reads windows
that double from it, each one's new matches after the narrower one's
(memory/search/window_order.py), so that every page is a slice of one order.

The window caps the dense side too: instead of every row above the
similarity threshold (tens of thousands at 1M messages with a sentence
model), only the ``window`` nearest rows (at least twice the rows asked for)
are taken, and the total is a lower bound when more may lie above the
threshold. Ranking stays exact under that cap: a word match outside the
nearest list gets its similarity looked up, and the list widens until no row
beyond its cut could reach the page asked for. A caller may cap the dense side
alone (``dense_cap``, without a window): archival does past 20,000 passages,
where finding every row above the threshold and fusing it cost more than the
rest of the search. Its ranking stays exact the same way; its total counts every
word match but only the dense matches read, so it is a lower bound when the cut
is above the threshold.

A search may also ask for its ``nearest`` rows in meaning (archival asks for
``NEAREST_MATCHES``): when fewer rows than that clear ``min_similarity``, the
nearest ones down to ``near_similarity(embedder)`` (half of it, unless the
embedder sets its own) match too, and the threshold ``t`` of the dense score
(memory/search/fusion_scores.py) becomes the lowest of their cosines. A short or unusual
question often
reaches few rows at the threshold although the rows it is about are the nearest
(a question's cosines shift with its wording), and its dense side then ranked
little or nothing. Half the threshold still keeps plainly unrelated text out
(MiniLM: unrelated sentences score below 0.11, its threshold is 0.3). On LoCoMo
(README "Evaluation") it lifted recall@10 on both dev conversations; a query
with that many rows above the threshold ranks as before.

Matches are ranked by the weighted sum of their normalised BM25 and dense scores, or
by reciprocal ranks, as ``FusionWeights`` (memory/search/fusion_weights.py) say; the
scores and why they are fused that way are in memory/search/fusion_scores.py.

The ranking is exact at any page: every dense match taken is scored (with its
BM25 looked up if the lexical list was not read that far), and the lists are
read until no unread row can outrank the last result asked for. So page N of a
search is always the Nth slice of one order (ties aside: rows whose scores tie
to float precision may swap).

Through an approximate vector index (``VectorIndex.approximate``: HNSW, chosen
by ``vector_index``), the capped dense side is the ``APPROXIMATE_DENSE_WINDOW``
nearest rows the index finds, not widened by its cut: the index may miss near
rows, so widening could not make the ranking exact, and the graph's time grows
with the rows asked for (the 2,000 nearest cost more through it than the exact
scan below 200,000 rows). Word matches still get their similarity looked up.

Callers drop words that occur in more than half of the rows from the query
first (``lexical_query_text``, with ``prune_common``; in a store of at least
``PRUNE_MIN_ROWS``), and both lists use the pruned text: such a word,
typically the name of the person every message is from or about, gets no
weight from BM25 but dominates a sentence embedding of a short question,
pulling in every row that mentions the name instead of the ones on the
question's topic. A query vector passed by the caller is used as given.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.search.dense import Passing, dense_matches
from tiermem.memory.search.fusion_scores import Ranked, rank_scored, rrf_ranking, weighted_ranking
from tiermem.memory.search.fusion_weights import FusionWeights
from tiermem.memory.search.lexical import (
    PRUNE_MIN_ROWS,
    STOPWORDS,
    common_terms,
    dense_query_text,
    lexical_query_text,
    query_terms,
    without_words,
)
from tiermem.memory.search.replies import Replies, lift_replies
from tiermem.memory.search.window_order import windowed_order
from tiermem.memory.store.contract import LexicalIndex, VectorIndex
from tiermem.memory.store.records import RowFilter
from tiermem.memory.types import Hit, SearchResult
from tiermem.memory.validation import (
    MAX_QUERY_CHARS,
    check_page,
    clean_text,
    end_of_day,
    to_timestamp,
)

# The query-text helpers live in memory.search.lexical, the weights in
# memory.search.fusion_weights and the fused scores in memory.search.fusion_scores;
# callers may import them from here too.
__all__ = [
    "PRUNE_MIN_ROWS",
    "STOPWORDS",
    "FusionWeights",
    "Passing",
    "Ranked",
    "common_terms",
    "date_range",
    "dense_query_of",
    "dense_query_text",
    "hybrid_search",
    "lexical_query_text",
    "query_terms",
    "rank_scored",
    "search_page",
    "without_words",
]

#: How many nearest rows a capped dense side takes through an approximate index (HNSW).
APPROXIMATE_DENSE_WINDOW = 200
#: Archival's ``nearest``: how many rows nearest in meaning match even below the embedder's
#: threshold, down to its ``near_similarity`` (module docstring).
NEAREST_MATCHES = 20
_TIE = 1e-9


def date_range(start: Any, end: Any, names: tuple[str, str] = ("start", "end"),
               ) -> tuple[float | None, float | None]:
    """An inclusive date range as timestamps (a bare end date means the end of that day);
    an error names the bounds as ``names`` says the caller calls them."""
    lo, hi = to_timestamp(start, names[0]), end_of_day(end, names[1])
    if lo is not None and hi is not None and lo > hi:
        raise InvalidInputError(f"{names[0]} is after {names[1]}; swap them")
    return lo, hi


def hybrid_search(
    lexical_index: LexicalIndex,
    *,
    passing: Passing,
    vectors: VectorIndex | None,
    embedder: Embedder | None,
    query: str,
    limit: int,
    filt: RowFilter,
    weights: FusionWeights,
    query_vector: np.ndarray | None = None,
    window: int | None = None,
    dense_filt: RowFilter | None = None,
    dense_cap: int | None = None,
    nearest: int = 0,
    uncounted: Collection[int] = (),
) -> tuple[list[Ranked], int, bool]:
    """The best ``limit`` matches, fused, the total number of matches, and whether it is exact.

    ``query_vector`` is used as given, instead of embedding ``query``: the
    caller then owns the dense query, and common words are not dropped.
    ``window`` bounds the matches ranked (module docstring): the newest
    ``window`` that match the words and the ``window`` nearest in meaning; the
    total is exact whenever no more than that match either way.
    ``dense_filt`` replaces ``filt`` for the dense matches when the caller
    knows that every row with a vector passes part of it. ``dense_cap`` (without
    a window) takes the ``dense_cap`` nearest rows in meaning instead of every
    one above the threshold, widened as the window's are: the ranking stays
    exact, and the total is a lower bound when more rows may lie above it.
    The ``nearest`` rows nearest in meaning match even below the threshold (module
    docstring). The rows ``uncounted`` are ranked but left out of the total, wherever
    they rank.
    """
    terms = query_terms(query)
    dense_filt = filt if dense_filt is None else dense_filt
    lexical = lexical_index.rank(terms, filt, window) if (
        terms and weights.lexical > 0) else None
    try:
        # Beyond the page asked for, so the last row of the page usually leads the cut.
        cap = max(window, 2 * limit) if window is not None else None if dense_cap is None else (
            max(dense_cap, 2 * limit, weights.depth if weights.method == "rrf" else 0))
        # Through an approximate index the ranking cannot be made exact by widening the
        # nearest list, so the list stays short (its cost grows with its length) and
        # widens only when it holds too few rows for the page or none passing the filters.
        approximate = vectors is not None and vectors.approximate
        if approximate and cap is not None:
            cap = max(APPROXIMATE_DENSE_WINDOW, 2 * limit)
        dense = dense_matches(passing, vectors, embedder, query, dense_filt, weights.dense,
                              query_vector, cap, nearest)
        w_lex = weights.lexical if lexical is not None else 0.0
        w_dense = weights.dense if vectors is not None and embedder is not None and len(
            vectors) and weights.dense > 0 else 0.0
        # RRF fuses lists cut at ``depth``; the weighted sum reads each list only as deep as
        # its bound requires, and a bounded lexical ranking scores rows lazily, so reading
        # it to ``depth`` first could cost a full scoring for nothing. (With a window
        # every word match in the window is scored anyway.)
        depth = max(limit, weights.depth) if weights.method == "rrf" or window else limit
        while True:
            matches, floor = dense.matches, dense.floor
            span = max(max(matches.values()) - floor, floor) if matches else 0.0
            if lexical is not None and dense.cut is not None and window is not None:
                # Both lists capped: score the whole word window (at most ``window`` rows),
                # so only the dense cut bounds what is left unread.
                scores = lexical.everything()
            else:
                scores = lexical.top(depth) if lexical is not None else {}
            if weights.method == "rrf":
                ranked = rrf_ranking(list(scores)[:depth], list(matches)[:depth], weights)
                break
            if lexical is not None and lexical.truncated:
                scores.update(lexical.scores_of([i for i in matches if i not in scores]))
            more_words = lexical is not None and lexical.truncated
            if dense.cut is not None and vectors is not None:
                dense.score_words(vectors, scores)
            ranked = weighted_ranking(scores, matches, floor, span, w_lex, w_dense, limit)
            if not more_words and dense.cut is None:
                break
            # The best a row not scored yet can reach: below the lexical cut if it matches
            # the words, and below the cut of the nearest list in meaning.
            word_bound = (w_lex * lexical.cut / (lexical.best or 1.0)
                          if lexical is not None and more_words else 0.0)
            bound = word_bound
            if dense.cut is not None and span > 0 and not approximate:
                bound += w_dense * max(dense.cut - floor, 0.0) / span
            # The margin keeps float rounding from reading a tie at the cut as a lead: tied
            # rows not read yet may come first by id. If the filters dropped every row of the
            # nearest list, the best match in meaning is unread and with it the scale of every
            # dense score, so the list must widen.
            last = ranked[limit - 1].score if len(ranked) >= limit else None
            if (last is not None and last > bound / (w_lex + w_dense) + _TIE
                    and (dense.cut is None or dense.kept_nearest)):
                break
            # Each wider nearest list is another scan of every vector, so it widens only when
            # it is what holds the search: not while the words' cut alone still could.
            words_hold = (more_words and last is not None and dense.kept_nearest
                          and last <= word_bound / (w_lex + w_dense) + _TIE)
            if more_words:
                depth *= 4
            if dense.cut is not None and cap is not None and vectors is not None and (
                    not words_hold) and (
                    not approximate or len(ranked) < limit or not dense.kept_nearest):
                # Past a quarter of the rows a range scan is cheaper than a longer top list,
                # and so it is when the filters passed none of the nearest rows: the ones they
                # pass may be anywhere.
                cap = cap * 4 if cap * 16 < len(vectors) and dense.kept_nearest else None
                dense = dense_matches(passing, vectors, embedder, query, dense_filt,
                                      weights.dense, dense.query, cap, nearest)
        if lexical is None:
            return (ranked[:limit], len(dense.matches) - sum(i in dense.matches for i in uncounted),
                    dense.cut is None)
        rest = [i for i in dense.matches if i not in lexical.found]
        if lexical.truncated:  # dense matches beyond the lexical cut may match the words too
            beyond = lexical.scores_of(rest)
            rest = [i for i in rest if i not in beyond]
        total = lexical.total() + len(rest)
        if uncounted:
            # A row ranked below the page is counted all the same: asked one by one.
            by_words = [i for i in uncounted if i in lexical.found] + list(lexical.scores_of(
                [i for i in uncounted if i not in lexical.found]))
            total -= len(by_words) + sum(i in rest for i in uncounted if i not in by_words)
        # Past the window, a dense match may also match the words: counted once, so a lower bound.
        return ranked[:limit], total, lexical.exact and dense.cut is None
    finally:
        if lexical is not None:
            lexical.close()


def search_page(
    lexical: LexicalIndex,
    *,
    passing: Passing,
    vectors: VectorIndex | None,
    embedder: Embedder,
    weights: FusionWeights,
    rows: int,
    query: str,
    k: int,
    page: int,
    filt: RowFilter,
    fetch: Callable[[Sequence[int]], dict[int, Hit]],
    query_vector: np.ndarray | None = None,
    window: int | None = None,
    dense_filt: RowFilter | None = None,
    dense_cap: int | None = None,
    nearest: int = 0,
    replies: Replies | None = None,
    hidden: Collection[int] = (),
) -> SearchResult:
    """One page of a tier's hybrid search: the query checked and pruned, the rows fetched.

    ``fetch`` reads the hits of the chosen rowids; ``rows`` is the tier's row
    count; ``window`` (``hybrid_search``) widens to reach the page asked for, the matches
    each wider window adds following the narrower one's (memory.search.window_order), and
    a page past the last row counts every match, as the last page does; ``dense_cap`` grows
    to cover the page; ``nearest`` is ``hybrid_search``'s. ``replies`` finds the
    replies to the best hits that are questions, which rank beside them
    (memory.search.replies); every page is cut from that one order. The rows ``hidden``
    are stored but say nothing (a placeholder text): they are ranked past, never shown nor
    counted, and each page still holds ``k`` of the others.
    """
    query = clean_text(query, "query", max_chars=MAX_QUERY_CHARS)
    page, k = check_page(page, k)
    # A page past the tier's last row is empty whatever matches; ranking to its depth would
    # also overflow SQLite's and FAISS's integers. One page's worth still yields the total.
    past_end = (page - 1) * k >= max(rows, 1)
    depth = (k if past_end else page * k) + len(hidden)
    text = lexical_query_text(lexical, query, weights, rows)
    if (query_vector is None and window is not None and depth > window and not past_end
            and vectors is not None and len(vectors) and weights.dense > 0):
        # Each window a deep page ranks embeds the same text: once is enough.
        query_vector = embedder.embed_query(text)

    def rank(span: int | None) -> tuple[list[Ranked], int, bool]:
        return hybrid_search(
            lexical, passing=passing, vectors=vectors, embedder=embedder, query=text,
            limit=depth, filt=filt, weights=weights, query_vector=query_vector,
            window=span, dense_filt=dense_filt, dense_cap=dense_cap,
            nearest=nearest + len(hidden) if nearest else 0, uncounted=hidden)

    if window is not None and past_end:
        # Counted over every row, the total is the one the last page with results gave:
        # a page past the end says where the pages end as the pages before it did.
        ranked, total, exact = rank(max(window, rows))
    elif window is None or depth <= window:
        ranked, total, exact = rank(window)
    else:
        ranked, total, exact = windowed_order(rank, window, depth, rows)
    if hidden:
        ranked, depth = [r for r in ranked if r.id not in hidden], depth - len(hidden)
    if replies is not None and not past_end:
        every_match = len(ranked) < depth
        ranked, added = lift_replies(ranked, replies)
        ranked = ranked[:depth]
        if added and every_match:  # it matched nothing: one more row to page through
            total += added
        elif added:
            # It may match further down the ranking, or not at all: the total counts the
            # matches only, and says it may be short.
            exact = False
    chosen = [] if past_end else ranked[(page - 1) * k : page * k]
    by_id = fetch([r.id for r in chosen])
    hits = []
    for r in chosen:
        if r.id in by_id:
            hit = by_id[r.id]
            hit.score, hit.relevance, hit.similarity = r.score, r.relevance, r.similarity
            hits.append(hit)
    return SearchResult(hits=hits, total=total, page=page, page_size=k, total_exact=exact)


def dense_query_of(
    lexical: LexicalIndex,
    *,
    vectors: VectorIndex | None,
    weights: FusionWeights,
    rows: int,
    query: str,
) -> str | None:
    """The text ``search_page`` embeds for ``query`` with these settings, or None when
    it embeds nothing (no vectors, or a dense weight of 0). A search across the tiers
    asks each tier first, so all the texts run through the model in one batch."""
    if vectors is None or not len(vectors) or weights.dense <= 0:
        return None
    return lexical_query_text(lexical, clean_text(query, "query", max_chars=MAX_QUERY_CHARS),
                              weights, rows)
