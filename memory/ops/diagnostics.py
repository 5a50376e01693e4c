"""The health report of a memory, with the red flags that say when a policy is mis-tuned
or something is left to do.

Each red flag carries the figures that raised it, so a person can judge it:

- ``erasure_owed``: a forget asked to erase committed and its erasure did not
  (the process stopped between the two, memory/ops/erase.py): what it forgot is
  out of every read but still stored. A writer erases it on opening, so it
  shows in a read-only report (``read_only=True``); the flag counts the
  requests and shows nothing of what they forgot.
- ``core_thrashing``: core was at least 95% full in most recent interactions
  and more than one fact was evicted per interaction: promotion is too
  permissive (short-lived facts are being promoted).
- ``promote_evict_cycles``: one fact went back and forth between core and
  archival repeatedly: eviction is unstable, or hysteresis is too weak.
- ``archival_never_hits``: archival is not empty and has been searched, but
  no search found anything: search is broken or archival holds the wrong things.
  The searches counted are those asked of archival (``archival_search``, the
  agent's ``archival_memory_search``); ``query()`` reads archival among all
  three tiers and counts in neither the searches nor the hit rate.
- ``recall_unbounded``: recall is past the size where a retention or
  summarise-and-replace policy is due.
- ``rows_without_vectors``: passages (and, when recall is searched by meaning,
  user and assistant messages) without a vector from the current embedder:
  search by meaning cannot find them (an interrupted re-embedding, or rows
  stored by an older version). ``HierarchicalMemory.reindex`` embeds them.
- ``short_lived_dominates_core``: more than half of core is short-lived after
  enough interactions for the policy to have settled, and durable facts have
  been evicted: passing states are displacing lasting facts. (A core that
  merely has spare room filled by short-lived facts is healthy.)

The report reads the memory through ``DiagnosedMemory``, the members of it that it uses,
so this module does not import the facade that imports it.
"""

from __future__ import annotations

from typing import Any, Protocol

from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.ops.erase import pending_erasures
from tiermem.memory.ops.protocols import TieredMemory
from tiermem.memory.text.counts import counted
from tiermem.memory.tiers.policies import EvictionPolicy
from tiermem.memory.tiers.recall import EMBEDDED_ROLES

THRASH_FILL = 0.95
THRASH_EVICTIONS_PER_INTERACTION = 1.0
CYCLE_LIMIT = 2
MIN_SEARCHES_FOR_HIT_RATE = 5
RECALL_WARN_MESSAGES = 100_000
SETTLE_INTERACTIONS = 20
RECENT_WINDOW = 20
#: The end of the ``erasure_owed`` and ``rows_without_vectors`` messages: what a Python
#: caller does about them, which a front end with commands of its own replaces.
REOPEN_ADVICE = (": open it without read_only, HierarchicalMemory(path) (a PostgreSQL "
                 "memory: HierarchicalMemory(store=dsn, agent=name))")


def reindex_advice(pronoun: str = "them") -> str:
    """The end of the ``rows_without_vectors`` message, naming its rows by ``pronoun``."""
    return (f"; embed {pronoun} with HierarchicalMemory.reindex(path, embedder) (a "
            f"PostgreSQL memory: reindex(embedder=embedder, store=dsn, agent=name))")


REINDEX_ADVICE = reindex_advice()


def unembedded_pronoun(figures: dict[str, Any]) -> str:
    """How the ``rows_without_vectors`` flag with ``figures`` names its rows: "it" for one."""
    return "it" if (figures.get("passages") or 0) + (figures.get("messages") or 0) == 1 \
        else "them"


def unembedded_rows(passages: int, messages: int, embedder_id: str) -> str:
    """The ``rows_without_vectors`` message: only the kinds of row that lack a vector named,
    each counted, and the verb and pronoun agreeing with their total."""
    # One message is a user's or an assistant's, never both.
    kinds = [counted(passages, "passage")] if passages else []
    if messages:
        kinds.append(counted(messages, "user or assistant message",
                             "user and assistant messages"))
    pronoun = unembedded_pronoun({"passages": passages, "messages": messages})
    verb = "has" if pronoun == "it" else "have"
    return (f"{' and '.join(kinds)} {verb} no vector from the current embedder "
            f"({embedder_id}), so search by meaning cannot find {pronoun}"
            f"{reindex_advice(pronoun)}")


class DiagnosedMemory(TieredMemory, Protocol):
    """What the health report uses of a memory (``HierarchicalMemory``)."""

    @property
    def embedder(self) -> Embedder:
        ...

    @property
    def policy(self) -> EvictionPolicy:
        ...

    @property
    def counters(self) -> dict[str, int]:
        ...

    @property
    def tick(self) -> int:
        ...


def compute_diagnostics(memory: DiagnosedMemory) -> dict[str, Any]:
    """Health report: core composition, eviction and promotion rates, growth, red flags."""
    store, core = memory.store, memory.core
    interactions = memory.tick
    facts_in_core = len(core)
    durable = core.durable_count
    totals = store.facts.totals()
    evictions, promotions = totals.evictions, totals.promotions
    cycles, max_cycles = totals.cycles, totals.max_cycles
    cycling = [{"fact_id": f.id, "text": f.text, "cycles": f.cycles}
               for f in store.facts.cycling(CYCLE_LIMIT, 10)]
    recent = [(p.tick, p.core_size, p.evictions, p.archival_passages, p.recall_messages)
              for p in store.history.points(newest=RECENT_WINDOW + 1)]
    full_share = (
        sum(r[1] >= THRASH_FILL * core.limit for r in recent[:RECENT_WINDOW])
        / len(recent[:RECENT_WINDOW])
        if recent else 0.0
    )
    span = (recent[0][0] - recent[-1][0]) if len(recent) > 1 else 0
    # None until two interactions are on record: one point is no rate, and 0.00 would
    # read as "nothing grows".
    recent_evictions = (recent[0][2] - recent[-1][2]) / span if span else None
    archival_growth = (recent[0][3] - recent[-1][3]) / span if span else None
    recall_growth = (recent[0][4] - recent[-1][4]) / span if span else None
    searches = memory.counters["archival_searches"]
    with_hits = memory.counters["archival_searches_with_hits"]
    hit_rate = with_hits / searches if searches else None
    durable_share = durable / facts_in_core if facts_in_core else None
    short_share = 1 - durable_share if durable_share is not None else None

    report: dict[str, Any] = {
        "interactions": interactions,
        "core": {
            "facts": facts_in_core,
            "size": core.used,
            "limit": core.limit,
            "unit": core.unit,
            "tokens": core.tokens,
            "fill": core.used / core.limit,
            "durable": durable,
            "short_lived": facts_in_core - durable,
            "pct_durable": None if durable_share is None else 100 * durable_share,
            "policy": memory.policy.name,
        },
        "evictions": {
            "total": evictions,
            "per_interaction": evictions / interactions if interactions else None,
            "recent_per_interaction": recent_evictions,
            "retirements": store.history.retirements(),
        },
        "promotions": {
            "total": promotions,
            "promote_evict_cycles": cycles,
            "max_cycles_one_fact": max_cycles,
            "cycling_facts": cycling,
        },
        "archival": {
            "passages": len(memory.archival),
            "growth_per_interaction": archival_growth,
            "searches": searches,
            "searches_with_hits": with_hits,
            "hit_rate": hit_rate,
        },
        "recall": {
            "messages": len(memory.recall),
            "growth_per_interaction": recall_growth,
        },
    }
    flags: list[dict[str, Any]] = []
    owed = len(pending_erasures(store))
    if owed:
        flags.append(_flag(
            "erasure_owed",
            f"{counted(owed, 'forget request')} asked for an erasure that has not run "
            f"(the process stopped between forgetting and erasing): what they forgot is out "
            f"of every read but still stored, and a snapshot carries it with the erasure owed; "
            f"the next session to open this memory for writing erases it first{REOPEN_ADVICE}",
            requests=owed))
    if (full_share >= 0.5 and recent_evictions is not None
            and recent_evictions > THRASH_EVICTIONS_PER_INTERACTION):
        flags.append(_flag(
            "core_thrashing",
            f"core was >= {THRASH_FILL:.0%} full in {full_share:.0%} of recent interactions "
            f"with {recent_evictions:.2f} evictions per interaction; tighten what gets promoted "
            f"to core (durability classification) or raise core_limit",
            fill_share=full_share, evictions_per_interaction=recent_evictions))
    if cycling:
        flags.append(_flag(
            "promote_evict_cycles",
            f"{counted(len(cycling), 'fact')} went core -> archival -> core at least "
            f"{CYCLE_LIMIT} times (worst: {max_cycles}); raise promote hits / hysteresis or "
            f"weight frequency more",
            facts=len(cycling), max_cycles=max_cycles))
    if len(memory.archival) and searches >= MIN_SEARCHES_FOR_HIT_RATE and with_hits == 0:
        flags.append(_flag(
            "archival_never_hits",
            f"{counted(searches, 'archival search', 'archival searches')} found nothing in "
            f"{counted(len(memory.archival), 'passage')}; "
            f"check search with a query for a known archived fact",
            searches=searches, passages=len(memory.archival)))
    if len(memory.recall) >= RECALL_WARN_MESSAGES:
        flags.append(_flag(
            "recall_unbounded",
            f"recall holds {len(memory.recall):,} messages"
            + (f" and grows by {recall_growth:.1f} per interaction" if recall_growth is not None
               else "")
            + " with no retention policy; plan erasure or summarise-and-replace",
            messages=len(memory.recall), growth=recall_growth))
    unembedded = _rows_without_vectors(memory)
    report["archival"]["without_vectors"] = unembedded["passages"]
    report["recall"]["without_vectors"] = unembedded["messages"]
    passages, unembedded_messages = unembedded["passages"] or 0, unembedded["messages"] or 0
    if passages or unembedded_messages:
        flags.append(_flag(
            "rows_without_vectors",
            unembedded_rows(passages, unembedded_messages, memory.embedder.id),
            passages=unembedded["passages"], messages=unembedded["messages"],
            embedder=memory.embedder.id))
    durable_evicted = store.history.durable_evictions()
    if (short_share is not None and short_share > 0.5 and durable_evicted
            and interactions >= SETTLE_INTERACTIONS):
        flags.append(_flag(
            "short_lived_dominates_core",
            f"{100 * short_share:.0f}% of core is short-lived after {interactions} interactions "
            f"while {counted(durable_evicted, 'durable fact')} "
            f"{'was' if durable_evicted == 1 else 'were'} evicted: passing states are pushing "
            f"out lasting facts; the policy ({memory.policy.name}) or the durability "
            f"classifier is mis-tuned for this workload",
            pct_short_lived=100 * short_share, interactions=interactions,
            durable_evicted=durable_evicted))
    report["red_flags"] = flags
    return report


def _rows_without_vectors(memory: DiagnosedMemory) -> dict[str, int | None]:
    """Rows that should have a vector from the current embedder and do not; messages
    count only when recall is searched by meaning (None otherwise)."""
    embedder_id = memory.embedder.id
    passages = memory.store.passages.count_without_vector(embedder_id)
    messages = None
    if memory.recall.vectors is not None:
        messages = memory.store.messages.count_without_vector(embedder_id, EMBEDDED_ROLES)
    return {"passages": passages, "messages": messages}


def _flag(name: str, message: str, **figures: Any) -> dict[str, Any]:
    return {"name": name, "message": message, "figures": figures}
