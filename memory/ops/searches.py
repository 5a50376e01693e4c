"""``HierarchicalMemory``'s searches: ``archival_search``, ``recall_search`` and ``query``
(the facade binds these as its methods) and their bodies: one tier's page, and ``query()``
across all three, each with its optional second round (memory.search.hops) and the privacy
policy's recall layer applied to what the rounds found.

They read the memory through ``SearchedMemory``, the part of it they use, so this module
does not import the facade that imports it."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Protocol

from tiermem.memory.embed.checked import checked
from tiermem.memory.embed.embeddings import Embedder, strong_similarity
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.ops.context_screen import shown_with_context
from tiermem.memory.ops.protocols import GuardedMemory, RankedMemory
from tiermem.memory.search.fusion import NEAREST_MATCHES
from tiermem.memory.search.hops import HopSettings, hop_page, second_round
from tiermem.memory.search.lexical import common_terms, query_terms
from tiermem.memory.search.query import (
    TierRanking,
    Tiers,
    query_tiers,
    rank_tiers,
    strong_matches,
)
from tiermem.memory.search.replies import replies_to
from tiermem.memory.store.records import TextTable
from tiermem.memory.tiers.lifecycle import FactLifecycle
from tiermem.memory.types import Hit, SearchResult
from tiermem.memory.validation import MAX_QUERY_CHARS, check_flag, check_results, clean_text


class SearchedMemory(RankedMemory, GuardedMemory, Protocol):
    """What the searches use of a memory (``HierarchicalMemory``)."""

    @property
    def lifecycle(self) -> FactLifecycle:
        ...

    def recall_search(
        self, query: str, k: int = 10, page: int = 1, roles: Sequence[str] | None = None,
        start: Any = None, end: Any = None, before_id: int | None = None,
        hop: HopSettings | None = None, *, query_embedder: Embedder | None = None,
    ) -> SearchResult:
        ...


# -- the entry points ------------------------------------------------------------------
def archival_search(
    memory: SearchedMemory, query: str, k: int = 10, page: int = 1,
    tags: Sequence[str] | None = None, start: Any = None, end: Any = None,
    hop: HopSettings | None = None, *, query_embedder: Embedder | None = None,
    nearest: int = NEAREST_MATCHES, touch: bool = False,
) -> SearchResult:
    """Hybrid search of archival, counted in diagnostics' archival searches (``query()``
    reads archival without counting); ``hop`` adds a second round (memory.search.hops).
    ``query_embedder`` embeds the query in place of the memory's embedder (the same
    model). The ``nearest`` passages nearest in meaning match even somewhat below the
    embedder's threshold when fewer clear it (memory.search.fusion); ``query()`` reads
    with 0, as it ranks every tier on a scale that starts at the threshold.
    With ``touch``, the page's archived facts the query is about count as hits toward
    promotion, as in ``query(touch=True)`` (memory.ops.searches.facts_about); without,
    nothing changes."""
    check_hop(hop)
    if isinstance(nearest, bool) or not isinstance(nearest, int) or not 0 <= nearest <= 1000:
        raise InvalidInputError(f"nearest must be an integer from 0 to 1000 (the passages "
                                f"nearest in meaning that may match), got {nearest!r}")
    result = archival_page(memory, query, k, page, tags, start, end, hop,
                           checked_query_embedder(memory, query_embedder), nearest)
    memory.counters["archival_searches"] += 1
    memory.counters["archival_searches_with_hits"] += bool(result.total)
    if touch:
        count_used(memory, query, result.hits)
    return result


def recall_search(
    memory: SearchedMemory, query: str, k: int = 10, page: int = 1,
    roles: Sequence[str] | None = None, start: Any = None, end: Any = None,
    before_id: int | None = None, hop: HopSettings | None = None, *,
    query_embedder: Embedder | None = None,
) -> SearchResult:
    """Search the conversation log; ``before_id`` leaves out that message and later ones;
    ``hop`` adds a second round (memory.search.hops); ``query_embedder`` is as for
    ``archival_search``."""
    check_hop(hop)
    return recall_page(memory, query, k, page, roles, start, end, before_id, hop,
                       checked_query_embedder(memory, query_embedder))


def query(memory: SearchedMemory, q: str, k: int = 10, touch: bool = True,
          hop: HopSettings | None = None) -> list[Hit]:
    """Search all three tiers: the best ``k`` hits on one scale, best first.

    Every tier is scored with the same hybrid formula. A core fact that
    matches strongly (it holds every content word of the query, or its
    embedding is at least ``strong_similarity(embedder)`` from the query's)
    is never cut by ``k``: it takes the place of the weakest other hit, and
    if more than ``k`` match strongly the ``k`` best-scoring are kept.
    Weaker core matches, such as facts sharing only a name with the query,
    compete on score (memory.search.query says why). The reply to a question
    among the best hits ranks beside it (memory.search.replies).

    With ``touch``, the returned facts the query is about (those it matches
    strongly, as above; memory.ops.searches.facts_about) count as used: a
    core fact as accessed, an archived fact as a hit toward promotion, each
    once per interaction. Facts that only share a name with the query or
    are merely nearest in meaning do not count, and a read-only memory
    counts nothing. Under a privacy policy, hits its recall layer withholds
    for ``q`` are left out, as from every search.
    ``hop`` adds a second round from the first's best hits (memory.search.hops);
    core's matches among the first round's ``k`` keep their places.
    """
    check_results(k)
    check_flag(touch, "touch")
    check_hop(hop)
    q = clean_text(q, "query", max_chars=MAX_QUERY_CHARS)
    found = query_all(memory, q, k, hop)
    if touch:
        count_used(memory, q, found.hits, found.core_strong)
    return found.hits


def check_hop(hop: Any) -> None:
    """Refuse a ``hop`` that is no HopSettings (None: one round)."""
    if hop is not None and not isinstance(hop, HopSettings):
        raise InvalidInputError(
            f"hop must be a HopSettings (memory.search.hops), or None for one round; got "
            f"{type(hop).__name__}")


def checked_query_embedder(memory: SearchedMemory, given: Any) -> Embedder | None:
    """A search's ``query_embedder``: None, or an Embedder of the memory's dimension whose
    vectors are checked as the memory's own embedder's are (memory/embed/checked.py), so
    a wrong one is refused by name instead of failing inside the vector search."""
    if given is None:
        return None
    if not isinstance(given, Embedder):
        raise InvalidInputError(
            f"query_embedder must be an Embedder of the memory's model (id, dim, "
            f"min_similarity, embed_documents and embed_query), or None for the memory's "
            f"own; got {type(given).__name__}")
    if given.dim != memory.embedder.dim:
        raise InvalidInputError(
            f"query_embedder {given.id!r} makes vectors of {given.dim!r} dimensions and this "
            f"memory's embedder {memory.embedder.id!r} of {memory.embedder.dim}: pass the "
            f"model the memory was embedded with, or None for the memory's own")
    return checked(given)


# -- their bodies ----------------------------------------------------------------------
class OneSearch(Protocol):
    """One search of a tier: ``(text, k, page)`` to one page of results; ``window``
    widens recall's window of newest matches (None: the tier's own)."""

    def __call__(self, text: str, k: int, page: int,
                 window: int | None = None, /) -> SearchResult:
        ...


def archival_page(memory: SearchedMemory, query: str, k: int, page: int,
                  tags: Sequence[str] | None, start: Any, end: Any, hop: HopSettings | None,
                  query_embedder: Embedder | None, nearest: int,
                  lift_replies: bool = True) -> SearchResult:
    """One page of archival's hybrid search, as the recall layer lets ``query`` see it;
    ``lift_replies`` ranks replies beside their questions (``query()`` does so itself,
    across the tiers)."""
    def search(text: str, m: int, at: int, window: int | None = None) -> SearchResult:
        # Archival ranks every match: it has no window to widen.
        return memory.archival.search(text, k=m, page=at, tags=tags, start=start, end=end,
                                      query_embedder=query_embedder, nearest=nearest,
                                      lift_replies=lift_replies,
                                      shown=_shown(memory, query, text))

    return _tier_page(memory, search, query, k, page, hop, "passages", len(memory.archival))


def facts_about(memory: SearchedMemory, query: str, hits: Sequence[Hit],
                core_strong: frozenset[int] | None = None) -> list[int]:
    """The ids of the facts among ``hits`` (core's, or archived facts' passages) that
    ``query`` is about: those it matches strongly, as ``query`` decides which of core's
    matches to keep (memory.search.query.strong_matches). A fact holds every content word
    of the query, or its embedding is at least ``strong_similarity(embedder)`` from the
    query's (its hit's ``similarity``). ``core_strong`` names the core facts the search
    pinned as strong (``TierRanking``): those are core's, with no second test.

    A passage need not hold the words in most passages, which archival's search leaves
    out too; a core fact needs them all, as for keeping its place. A page of hits also
    shows facts that share only a name with the question, or are merely nearest in
    meaning: the question is not about them.
    """
    terms = query_terms(query)
    close = strong_similarity(memory.embedder)
    about: list[int] = []
    tables: tuple[tuple[str, TextTable], ...] = (("core", "facts"), ("archival", "passages"))
    for tier, table in tables:
        facts = [h for h in hits if h.tier == tier and h.fact_id is not None]
        if not facts:
            continue
        if tier == "core" and core_strong is not None:
            about += [h.fact_id for h in facts if h.fact_id is not None and h.id in core_strong]
            continue
        lexical = memory.store.lexical(table)
        words = terms
        if tier == "archival":
            common = common_terms(lexical, terms, len(memory.archival))
            words = [t for t in terms if t not in common] or terms
        strong = strong_matches(lexical, words, {h.id: h.similarity for h in facts}, close)
        about += [h.fact_id for h in facts if h.fact_id is not None and h.id in strong]
    return about


def count_used(memory: SearchedMemory, query: str, hits: Sequence[Hit],
               core_strong: frozenset[int] | None = None) -> None:
    """Count the ``hits`` of ``query`` a caller used (``query(touch=True)``,
    ``archival_search(touch=True)``): a core fact's as an access, an archived fact's as a
    hit toward its promotion back to core (memory.tiers.lifecycle), each once per
    interaction. Only the facts the query is about count (``facts_about``): counting the
    others would keep in core, or bring back, facts nobody asked about. A read-only
    memory counts nothing. ``core_strong`` is as for ``facts_about``.
    """
    if memory.read_only:
        return
    used = facts_about(memory, query, hits, core_strong)
    if used:
        with memory.store.transaction():
            memory.lifecycle.count_use(used)


def recall_page(memory: SearchedMemory, query: str, k: int, page: int,
                roles: Sequence[str] | None, start: Any, end: Any, before_id: int | None,
                hop: HopSettings | None, query_embedder: Embedder | None,
                lift_replies: bool = True) -> SearchResult:
    """One page of the conversation log's search, as the recall layer lets ``query`` see it;
    ``lift_replies`` is as for ``archival_page``."""
    def search(text: str, m: int, at: int, window: int | None = None) -> SearchResult:
        return memory.recall.search(text, k=m, page=at, roles=roles, start=start, end=end,
                                    before_id=before_id, query_embedder=query_embedder,
                                    window=window,
                                    lift_replies=lift_replies,
                                    shown=_shown(memory, query, text))

    return _tier_page(memory, search, query, k, page, hop, "messages", len(memory.recall))


def _tier_page(memory: SearchedMemory, search: OneSearch, query: str, k: int, page: int,
               hop: HopSettings | None, table: TextTable, rows: int) -> SearchResult:
    """One page of a tier's ``search``, screened by the privacy policy, with its optional
    second round."""
    def one(text: str, n: int, at: int, window: int | None = None) -> SearchResult:
        def fetch(m: int, page: int = at, wider: int | None = window) -> SearchResult:
            return search(text, m, page, wider)

        return _screened(memory, text, fetch, n, at, table)

    return _with_hop(memory, one, query, k, page, hop, table, rows)


def query_all(memory: SearchedMemory, request: str, k: int,
              hop: HopSettings | None) -> TierRanking:
    """The best ``k`` hits of all three tiers for ``request`` (``HierarchicalMemory.query``),
    and the core facts it pinned as strong matches (not with ``hop``, whose second round
    searches other words: the touch step then tests the hits itself)."""
    privacy = memory.privacy
    tiers = Tiers(
        core=memory.core, core_vectors=memory.core_vectors,
        facts_text=memory.store.lexical("facts"),
        # query() scores every tier's hits from the embedder's threshold (memory.search.query):
        # archival's nearest rows below it would have no place on that scale. The page is
        # read past archival_search: its counters (diagnostics' hit rate, archival_never_hits)
        # measure the searches asked of archival, not the tier each query() reads.
        # Replies are lifted once, across the tiers (memory.search.query): a tier's own lift
        # would add rows the common scale puts last, in place of its real candidates.
        archival=lambda text, n, embedder: archival_page(
            memory, text, n, 1, None, None, None, None, embedder, 0, lift_replies=False),
        recall=lambda text, n, embedder: recall_page(
            memory, text, n, 1, None, None, None, None, None, embedder, lift_replies=False),
        embedder=memory.embedder, fusion=memory.fusion,
        recall_by_meaning=memory.recall.vectors is not None,
        core_shown=None if privacy is None else (
            lambda hits: privacy.filter_hits(request, hits)),
        dense_queries=lambda text: [
            found for found in (memory.archival.dense_query(text),
                                memory.recall.dense_query(text)) if found is not None],
        replies=lambda hits, sources: _replies(memory, request, hits, sources))
    now = memory.now()
    if hop is None:
        return rank_tiers(tiers, request, k, now)

    def common(terms: list[str]) -> set[str]:
        return (common_terms(memory.store.lexical("messages"), terms, len(memory.recall))
                | common_terms(memory.store.lexical("passages"), terms, len(memory.archival)))

    hits = second_round(lambda text, n: query_tiers(tiers, text, n, now), request, k, hop,
                        common=common, pinned=lambda hit: hit.tier == "core",
                        key=lambda hit: _source_of(memory, hit))
    # The second round searched words the question lacks: screen for the question.
    return TierRanking(hits if privacy is None else privacy.filter_hits(request, hits), None)


def _replies(memory: SearchedMemory, request: str, hits: Sequence[Hit],
             sources: Mapping[int, int] | None = None) -> dict[int, tuple[int, Hit]]:
    """For each of ``hits`` that stands for a question (a message, a fact learned from
    one, a passage filed from one), the message that replies to it, as a recall hit the
    privacy policy shows for ``request``, by the hit's position (memory.search.replies).
    ``sources`` gives the message each fact among the hits was learned from, when the
    caller has read them (fact id to message id); else they are read here."""
    # A second round screened its hits for its own words: a question withheld for
    # ``request`` lifts nothing.
    allowed = ([True] * len(hits) if memory.privacy is None
               else memory.privacy.allow_hits(request, list(hits)))
    if sources is None:
        sources = memory.core.source_messages(
            h.fact_id for h in hits if h.fact_id is not None)
    filed = memory.store.passages.get_many(
        [h.id for h in hits if h.tier == "archival" and h.fact_id is None])
    asking: dict[int, int] = {}
    for position, hit in enumerate(hits):
        if not allowed[position]:
            continue
        message = hit.id if hit.tier == "recall" else (
            sources.get(hit.fact_id) if hit.fact_id is not None
            else filed[hit.id].source_message_id if hit.id in filed else None)
        if message is not None:
            asking[position] = message
    if not asking:
        return {}
    reply_to = replies_to(memory.store.messages, list(asking.values()))
    found = memory.recall.get_many(sorted(set(reply_to.values())))
    shown = list(found.values())
    if memory.privacy is not None:
        shown = memory.privacy.filter_hits(request, shown)
    by_id = {h.id: h for h in shown}
    return {position: (reply_to[message], by_id[reply_to[message]])
            for position, message in asking.items()
            if message in reply_to and reply_to[message] in by_id}


def _shown(memory: SearchedMemory, request: str,
           text: str) -> Callable[[list[Hit]], list[Hit]] | None:
    """The hits of a search the privacy policy shows (None: all of them): for the
    ``request`` asked, and for the ``text`` of the round searched (a second round searches
    more words), as the page's hits are screened."""
    if memory.privacy is None:
        return None

    def screen(hits: list[Hit], words: str) -> list[Hit]:
        return [h for h, ok in zip(hits, shown_with_context(memory, words, hits), strict=True)
                if ok]

    if text == request:
        return lambda hits: screen(hits, request)
    return lambda hits: screen(screen(hits, text), request)


def _screened(memory: SearchedMemory, text: str, fetch: Callable[..., SearchResult],
              k: int, page: int, table: TextTable) -> SearchResult:
    """A page of ``fetch`` as the privacy policy shows it for ``text``; recall's hits that
    only their withheld context found are left out too (memory.ops.context_screen), and
    withheld matches widen recall's window of newest matches (privacy.recall)."""
    privacy = memory.privacy
    if privacy is None:
        return fetch(k)
    if table != "messages":
        return privacy.search_page(text, fetch, k, page)
    return privacy.search_page(text, fetch, k, page,
                               allow=lambda hits: shown_with_context(memory, text, hits),
                               window=memory.recall.window)


def _source_of(memory: SearchedMemory, hit: Hit) -> Hashable:
    """The message a hit stands for (a fact, its source), else the hit's own row."""
    fact = memory.core.load(hit.fact_id) if hit.fact_id is not None else None
    if fact is not None and fact.source_message_id is not None:
        return "recall", fact.source_message_id
    if hit.fact_id is not None:
        return "fact", hit.fact_id
    return hit.tier, hit.id


def _with_hop(memory: SearchedMemory, one: OneSearch, query: str, k: int, page: int,
              hop: HopSettings | None, table: TextTable, rows: int) -> SearchResult:
    """``one(query, k, page)``, or its second round with ``hop``. The second round searches
    words the question lacks, so what a privacy policy withholds for the question is
    withheld from the fused page too."""
    if hop is None:
        return one(query, k, page)
    lexical = memory.store.lexical(table)
    result = hop_page(lambda text, n: one(text, n, 1), query, k, page, hop,
                      lambda terms: common_terms(lexical, terms, rows))
    if memory.privacy is not None:
        result.hits = memory.privacy.filter_hits(query, result.hits)
    return result
