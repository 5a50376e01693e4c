"""``HierarchicalMemory.forget``: delete on request, as tombstones, with an audit.

A request is matched to stored items by a mode (memory/ops/forget_select.py):
``exact``, ``top_k_llm`` or ``exact_then_top_k_llm`` (exact first; the judge
only when nothing equals the request). What is chosen is *forgotten*: marked
with ``forgotten_at`` and from then on left out of every read (core and the
prompt, ``query``, archival and conversation search, their totals; the storage
contract says how). A fact and the passage core evicted it into are one item:
forgetting either forgets both. A message is forgotten with the facts learned
from it (``Fact.source_message_id``) and the passages filed from it
(``Passage.source_message_id``), which often quote it, as an erasure of the
message takes them. The messages of the same turns that quote a text forgotten
(the tool calls that stored a fact or moved it out of core, the tool results and
the replies echoing it) are forgotten with it (memory/ops/quoting.py says how
they are found). The rows stay, for the audit and for an erasure (``ForgetResult``
lists them per table), but are never un-forgotten.

A forgotten fact's normalised text is remembered as a hash (memory/ops/forgotten_norms.py):
extraction from conversation (``process_interaction``) does not store it again. Stating
it again explicitly (``add_fact``, the ``core_memory_append`` tool) does, as a new fact,
and lifts that block. The message a fact was learned from is not forgotten with it: the
result names it (``ForgetResult.sources_kept``), for the user to forget it too.

Every request, whatever its outcome, is one row of the audit: a keyed hash of
its text (HMAC-SHA256 with the memory's ``store_id``; never the text, which
quotes what is to be forgotten), the mode, the outcome and the ids forgotten; a request
that asks an erasure and forgets nothing keeps a random value instead, as an erasure
leaves the requests it concerns (memory/ops/erase.py).
Nothing of the audit enters search or recall. The request runs as one
transaction: either everything chosen is forgotten and audited, or nothing is.

A request the model makes (the ``forget`` tool, ``shown_only``) matches only what
the privacy policy shows the model, as ``replace_in_core`` does: a withheld
fact, passage or message is no candidate, so a guess at its text forgets
nothing and is answered as a guess at nothing. The user's own requests
(``/forget``, ``tiermem forget``, the library's default) match everything.

The bodies read the memory through ``ForgettingMemory``, the part of it they use, so this
module does not import the facade that imports it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from tiermem.memory.errors import ForgetRequestTooLongError, InvalidInputError, JudgeMissingError
from tiermem.memory.judge import Judge
from tiermem.memory.ops.context_screen import ScreenedMemory, shown_with_context
from tiermem.memory.ops.erase import (
    ERASURES_KEY,
    ErasedMemory,
    erasure_count,
    forget_reason,
    promise_erasure,
)
from tiermem.memory.ops.erase import erase as erase_rows
from tiermem.memory.ops.forget_config import MODES, ForgetConfig
from tiermem.memory.ops.forget_result import ForgetResult
from tiermem.memory.ops.forget_select import (
    EQUAL_TEXTS,
    OVER_THE_BOUND,
    Selection,
    Shown,
    exact_selection,
    llm_selection,
)
from tiermem.memory.ops.protocols import RankedMemory
from tiermem.memory.ops.quoting import quoting, quoting_copies
from tiermem.memory.ops.request_forms import request_forms
from tiermem.memory.ops.state_scrub import scrub_state
from tiermem.memory.prompt_history import PromptHistory
from tiermem.memory.store.records import ForgetRequest, Forgotten, Message
from tiermem.memory.text.extract import fact_norm
from tiermem.memory.types import Fact, Hit
from tiermem.memory.validation import MAX_QUERY_CHARS, MAX_TEXT_CHARS, check_flag, clean_text

#: The longest forget request accepted, in characters: any text a store holds, since exact
#: matching compares a stored text whole.
MAX_REQUEST_CHARS = MAX_TEXT_CHARS
#: The longest request a model is asked about (``top_k_llm``, and ``exact_then_top_k_llm``
#: when no stored text equals it): it is a search query and part of the judge's prompt.
MAX_JUDGED_REQUEST_CHARS = MAX_QUERY_CHARS


def clean_request(request: Any, fix: str = ", or erase an item by its id "
                  "(HierarchicalMemory.erase)") -> str:
    """``request`` stripped, or InvalidInputError. One longer than any stored text equals
    none, and its pieces would match nothing either (exact matching compares whole texts),
    so the advice is the text of one item, then ``fix``: the caller's other way out."""
    if isinstance(request, str) and len(request.strip()) > MAX_REQUEST_CHARS:
        raise InvalidInputError(
            f"forget request is {len(request.strip()):,} characters, over the limit of "
            f"{MAX_REQUEST_CHARS:,}, the longest a stored text can be, so no stored text "
            f"equals it; give the exact text of one item{fix}")
    return clean_text(request, "forget request", MAX_REQUEST_CHARS)


class ForgettingMemory(ErasedMemory, RankedMemory, ScreenedMemory, Protocol):
    """What a forget request uses of a memory (``HierarchicalMemory``): what selecting its
    targets and erasing them use, and the settings and state of forgetting."""

    @property
    def forget_config(self) -> ForgetConfig:
        ...

    @property
    def judge(self) -> Judge | None:
        ...


def request_hash(memory: ForgettingMemory, request: str) -> str:
    """The audit's hash of a request: keyed by the memory, so a short secret's hash cannot
    be looked up in a table of common texts without the database."""
    key = (memory.store.store_id or "").encode()
    return hmac.new(key, request.encode(), hashlib.sha256).hexdigest()


def forgot_before(memory: ForgettingMemory, request: str, audit_id: int) -> int | None:
    """The audit id of the latest request before ``audit_id`` with this text that forgot
    something, or None: made again, matching nothing now, it is done already, not mistyped.
    The audit keeps only a keyed hash of each request, which is all this compares; the text
    may differ in its final punctuation and its case where exact matching ignores them
    (memory/ops/request_forms.py)."""
    forms = request_forms(clean_request(request), memory.forget_config.exact)
    digests = [request_hash(memory, form) for form in forms]
    return max((done.id for done in memory.store.forgetting.requests()
                if done.id < audit_id and done.outcome == "matched"
                and any(hmac.compare_digest(done.request_hash, digest) for digest in digests)),
               default=None)


def run_forget(memory: ForgettingMemory, request: str, config: ForgetConfig,
               judge: Judge | None, erase: bool = False, shown_only: bool = False
               ) -> ForgetResult:
    """Select, tombstone and audit, in one transaction (module docstring); with ``erase``
    and a match, the transaction also marks the request's erasure as owed
    (memory/ops/erase.py). ``shown_only`` matches only what the privacy policy shows the
    model (module docstring)."""
    request = clean_request(request)
    check_flag(erase, "erase")
    check_flag(shown_only, "shown_only")
    if config.mode not in MODES:
        raise InvalidInputError(f"mode must be one of {', '.join(MODES)}, got {config.mode!r}")
    shown = shown_to_model(memory) if shown_only else None
    if len(request) > MAX_JUDGED_REQUEST_CHARS and _asks_the_judge(memory, request, config,
                                                                   shown):
        raise ForgetRequestTooLongError(len(request), config.mode, MAX_JUDGED_REQUEST_CHARS)
    if judge is None and _asks_the_judge(memory, request, config, shown):
        _audit(memory, request, config.mode, Selection("failed", detail="no judge configured"),
               concealed=erase)
        raise JudgeMissingError(config.mode)
    with memory.store.transaction():
        selection = _select(memory, request, config, judge, shown)
        forgotten = Forgotten()
        counted: Forgotten | None = Forgotten() if shown_only else None
        kept: tuple[int, ...] = ()
        if selection.outcome == "matched":
            forgotten, counted, kept = apply_forget(memory, selection.items,
                                                    counted is not None)
        audit_id = _audit(memory, request, config.mode, selection, forgotten,
                          concealed=erase and selection.outcome != "matched")
        if erase and selection.outcome == "matched":
            promise_erasure(memory.store, audit_id)
    return ForgetResult(selection.outcome, config.mode, forgotten, audit_id,
                        selection.detail, selection.candidates, shown=counted,
                        sources_kept=kept)


def forget_request(memory: ForgettingMemory, request: str, *, mode: str | None = None,
                   max_delete_count: int | None = None, erase: bool = False,
                   shown_only: bool = False) -> ForgetResult:
    """Forget the stored items ``request`` targets (memory/ops/forget.py).

    ``mode`` (``exact``, ``top_k_llm`` or ``exact_then_top_k_llm``) and
    ``max_delete_count`` override ``forget_config`` for this request. The LLM modes
    ask ``judge``; without one they raise InvalidInputError. Nothing is forgotten
    unless the outcome is ``matched``; every request is audited. ``erase`` then
    erases what was forgotten (``erase``), with what was derived from it; the
    result's ``erasure`` reports it. ``shown_only`` (for a request the model made, the
    ``forget`` tool) matches only the items the privacy policy shows the model: one it
    withholds is no candidate, in every mode, as if it were not stored.
    """
    config = memory.forget_config.updated(mode=mode, max_delete_count=max_delete_count)
    result = run_forget(memory, request, config, memory.judge, erase, shown_only)
    if not erase or result.outcome != "matched":
        return result
    done = result.forgotten
    report = erase_rows(memory, done.facts, done.passages, done.messages,
                        forget_reason(result.audit_id), fulfils=result.audit_id)
    return dataclasses.replace(result, erasure=report)


def shown_to_model(memory: ForgettingMemory) -> Shown | None:
    """Which items the privacy policy shows the model, decided as for a tool's result, with
    no current query; of those a search found, a message only its withheld context found is
    left out too (None: every item, with no policy or no recall layer)."""
    guard = memory.privacy
    if guard is None or not guard.recall_enabled:
        return None

    def shown(words: str | None, hits: Sequence[Hit]) -> list[bool]:
        if words is None:  # compared whole: their context found none of them
            return guard.allow_hits("", hits)
        return shown_with_context(memory, words, hits, decided_for="")

    return shown


def _asks_the_judge(memory: ForgettingMemory, request: str, config: ForgetConfig,
                    shown: Shown | None) -> bool:
    """Whether ``request`` reaches the judge: in ``top_k_llm`` always, in
    ``exact_then_top_k_llm`` only when no stored text (``shown``) equals it, which needs
    no model."""
    if config.mode == "exact":
        return False
    return (config.mode == "top_k_llm"
            or not exact_selection(memory, request, config, shown).items)


def _select(memory: ForgettingMemory, request: str, config: ForgetConfig,
            judge: Judge | None, shown: Shown | None) -> Selection:
    selection = Selection("unmatched")
    if config.mode in ("exact", "exact_then_top_k_llm"):
        selection = exact_selection(memory, request, config, shown)
        if len(selection.items) > config.max_delete_count:
            return Selection("ambiguous", detail=f"{len(selection.items)} {EQUAL_TEXTS}, "
                             f"{OVER_THE_BOUND} {config.max_delete_count}")
        if selection.outcome == "matched" or config.mode == "exact":
            return selection
    assert judge is not None  # run_forget refuses a request that needs one without
    return llm_selection(memory, request, config, judge, shown)


def apply_forget(memory: ForgettingMemory, items: list[tuple[str, int]],
                 count_shown: bool = False
                 ) -> tuple[Forgotten, Forgotten | None, tuple[int, ...]]:
    """Tombstone ``items`` (with each fact's passage, each passage's fact, each message's
    learned facts and filed passages, and the messages of their turns quoting any of them),
    drop their vectors and prompt-history lines, and bring the tiers' in-memory state in
    step. Returns what was forgotten, with ``count_shown`` which of it the privacy
    policy shows the model (``shown_of``), and the messages the facts forgotten were
    learned from that stay (``ForgetResult.sources_kept``)."""
    store = memory.store
    facts = {i for table, i in items if table == "facts"}
    passages = {i for table, i in items if table == "passages"}
    messages = sorted(i for table, i in items if table == "messages")
    if messages:
        facts.update(store.facts.learned_from(messages))
        passages.update(store.passages.filed_from(messages))
    named_passages = list(store.passages.get_many(sorted(passages)).values())
    for passage in named_passages:
        if passage.fact_id is not None:
            facts.add(passage.fact_id)
    fact_rows = [f for f in (memory.core.load(i) for i in sorted(facts)) if f is not None]
    passages.update(f.passage_id for f in fact_rows if f.passage_id is not None)
    message_rows = list(store.messages.get_many(messages).values())
    # A fact's passage holds the fact's own text, so the facts and the passages named stand
    # for every text forgotten.
    quoted = ([f.text for f in fact_rows] + [p.text for p in named_passages]
              + [m.content for m in message_rows])
    # The messages of their turns that quote those texts (tool calls, tool results, the
    # reply) go too (memory/ops/quoting.py).
    sources = [*messages, *(f.source_message_id for f in fact_rows),
               *(p.source_message_id for p in named_passages)]
    taken = set(messages)
    # The turn that moved a fact out of core ("Forget that.", a correction) quotes it in its
    # call, the tool's result and the reply; the clock's tick is the turn that ran it.
    retired_in = {int(f.evicted_tick) for f in fact_rows if f.evicted_tick is not None}
    quoting_rows = [m for m in quoting_copies(
        store.messages.in_turns_of([i for i in sources if i is not None]), quoted,
        store.messages.in_turns(sorted(retired_in)), [f.text for f in fact_rows])
                    if m.id not in taken]
    # Decided before the rows are tombstoned, when every one of them can still be read.
    shown = (shown_of(memory, fact_rows, sorted(passages), message_rows, quoting_rows)
             if count_shown else None)
    message_rows += quoting_rows
    messages = sorted(m.id for m in message_rows)
    user_lines = [m.content for m in message_rows if m.role == "user"]
    now = memory.now()
    done = store.forgetting.forget(sorted(facts), sorted(passages), messages, now)
    memory.forgotten_norms.add({fact_norm(f.text) for f in fact_rows if f.id in done.facts},
                               now)
    if done.passages:
        memory.archival.vectors.remove(np.asarray(done.passages, dtype=np.int64))
    if done.messages and memory.recall.vectors is not None:
        memory.recall.vectors.remove(np.asarray(done.messages, dtype=np.int64))
    PromptHistory(store).forget(user_lines)
    # Lines kept outside the database (a chat's history under --no-history) lose the same.
    memory.prompt_history.scrub(user_lines, quoted)
    # Stored state (the agent's running summary, which goes into every prompt) loses the
    # lines quoting what was forgotten, and the count tells the agent to write its summary
    # again, as after an erasure.
    scrub_state(store.settings, quoted)
    if done:
        store.settings.set(ERASURES_KEY, erasure_count(memory) + 1)
    memory.core.reload()
    memory.archival.reload()
    memory.recall.reload()
    # Read after the tombstones: a message forgotten, with them or before, is not kept.
    sources_kept = tuple(sorted(store.messages.get_many(sorted(
        {f.source_message_id for f in fact_rows
         if f.id in done.facts and f.source_message_id is not None}))))
    if shown is None:
        return done, None, sources_kept
    return done, Forgotten(*(tuple(i for i in ids if i in kept) for ids, kept in
                             zip((done.facts, done.passages, done.messages), shown,
                                 strict=True))), sources_kept


def shown_of(memory: ForgettingMemory, facts: Sequence[Fact], passage_ids: Sequence[int],
             messages: Sequence[Message], quoting_rows: Sequence[Message] = (),
             ) -> tuple[set[int], set[int], set[int]] | None:
    """Of these rows about to be forgotten, the ids of the facts, passages and messages
    whose own text the privacy policy shows the model, decided as ``shown_to_model``
    decides (None: all of them). Of ``quoting_rows``, the messages taken for quoting the
    others, only those quoting a text shown count: one taken for quoting a withheld fact
    alone (the model's own call that stored it, whose content is empty) would tell that
    the fact was there."""
    guard = memory.privacy
    if guard is None or not guard.recall_enabled:
        return None
    passages = list(memory.store.passages.get_many(list(passage_ids)).values())
    tables = ([Hit(f.text, "core", 0.0, f.created_at, f.id) for f in facts],
              [Hit(p.text, "archival", 0.0, p.created_at, p.id, metadata=p.metadata)
               for p in passages],
              [Hit(m.content, "recall", 0.0, m.created_at, m.id)
               for m in [*messages, *quoting_rows]])
    shown = guard.allow_hits("", [h for hits in tables for h in hits])
    out: list[set[int]] = []
    for hits in tables:
        out.append({h.id for h, ok in zip(hits, shown[:len(hits)], strict=True) if ok})
        shown = shown[len(hits):]
    texts = ([f.text for f in facts if f.id in out[0]]
             + [p.text for p in passages if p.id in out[1]]
             + [m.content for m in messages if m.id in out[2]])
    quoting_shown = {m.id for m in quoting(quoting_rows, texts)}
    out[2] -= {m.id for m in quoting_rows if m.id not in quoting_shown}
    return out[0], out[1], out[2]


def _audit(memory: ForgettingMemory, request: str, mode: str, selection: Selection,
           forgotten: Forgotten | None = None, concealed: bool = False) -> int:
    """Record the request; ``concealed`` (an erasure asked, nothing forgotten) with a
    random value for its hash, as an erasure leaves the requests it fulfils."""
    digest = secrets.token_hex(32) if concealed else request_hash(memory, request)
    with memory.store.transaction():
        return memory.store.forgetting.record(ForgetRequest(
            created_at=memory.now(), request_hash=digest, mode=mode,
            outcome=selection.outcome, forgotten=forgotten or Forgotten(),
            detail=selection.detail))
