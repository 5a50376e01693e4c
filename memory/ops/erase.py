"""Physical erasure: facts, passages and messages removed with everything derived from them.

``erase`` takes ids and removes, in one transaction:

- the facts named, the facts learned from the messages named
  (``Fact.source_message_id``) and the facts whose passages are named (a fact's
  passage holds the fact's own text);
- the passages named, the passages filed from the messages named
  (``Passage.source_message_id``), and the passages made from those facts, with
  their full-text entries and vectors;
- the messages named, each with an erasure record (id, reason, time) first, and
  their lines of the prompt history;
- the messages of the same turns (those of the messages named, and those the
  facts and passages erased were learned or filed from) that quote a text
  erased, in their content or their tool calls' arguments, and the model's
  messages of the turn that last moved a fact erased out of core
  (``Fact.evicted_tick``) that quote that fact, the same way (memory/ops/quoting.py);
- the model's messages of every other turn that quote a text erased, read from all of
  recall once (memory/ops/erased_copies.py), counted apart in the report; the user's
  messages quoting it, in any turn, are named in the report, not taken;
- every line of a stored state value (the agent's summary) that quotes what
  was erased (memory/ops/state_scrub.py), and of the copies of the prompt history
  a layer above keeps outside the database (memory/prompt_history.py).

Once that commits, the backend purges its storage (``purge_erased``: for SQLite,
merged full-text segments, an emptied write-ahead log and a rebuilt database)
and the FAISS files are written again, so the content is in none of the files
tiermem wrote. Inside a caller's transaction (a tool call in a turn) that last
step waits for the outermost commit; a rollback undoes the whole erasure.

The audit's hashes of the forget requests that forgot a row erased, or forgot nothing
(a request mistyped or made again quotes what was erased as well), are replaced by
random values in the same transaction: the key is stored beside them, so a short
secret's hash is checked against every guess.

The report holds counts and one digest of what was erased, never the content.

A forget request that asks for an erasure (``forget(..., erase=True)``) forgets in
one transaction and erases in the next. Its audit id is stored with the forget
(``ERASE_PENDING_KEY``) and cleared with the erasure, and the next session to open
the memory for writing erases what is still listed (``resume_erasures``): else a
process killed between the two would leave the text on disk, forgotten, and the
same request made again would match nothing and say so.

The bodies read the memory through ``ErasedMemory``, the part of it they use, so this
module does not import the facade that imports it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from tiermem.memory.errors import InvalidInputError, TiermemError
from tiermem.memory.ops.erased_copies import copies_in_recall, users_apart
from tiermem.memory.ops.forgotten_norms import ForgottenNorms
from tiermem.memory.ops.protocols import TieredMemory
from tiermem.memory.ops.quoting import quoting_copies
from tiermem.memory.ops.state_scrub import scrub_state
from tiermem.memory.prompt_history import PromptHistory
from tiermem.memory.store.contract import StorageBackend, VectorIndex
from tiermem.memory.store.records import ForgetRequest, Message, Passage
from tiermem.memory.text.digest import digest_of_all, norm_hash
from tiermem.memory.text.extract import fact_norms
from tiermem.memory.tiers.journal import Journal
from tiermem.memory.types import Fact
from tiermem.memory.validation import MAX_ID, clean_text, integral

#: The setting that counts erasures, so layers above can tell that one happened.
ERASURES_KEY = "erasure_count"
#: The setting that marks an erasure committed and not yet purged.
PURGE_PENDING_KEY = "purge_pending"
#: The setting that lists the forget requests (audit ids, space-separated) whose erasure
#: was asked for and has not committed yet.
ERASE_PENDING_KEY = "erase_pending"


@dataclass(frozen=True)
class ErasureReport:
    """What one ``erase`` removed: counts, and a digest of the erased content in id order
    (``kind:id`` then the text, for facts, passages, then messages), never the content.

    ``not_reached`` says, in words, what the erasure could not reach in the backend's
    storage (empty when nothing is left anywhere tiermem writes); it is filled when
    the purge ran, so it stays empty while ``purge_pending``.
    """

    facts: int
    passages: int
    messages: int
    state_values: int
    digest: str
    #: Of ``messages``, those of other turns taken for quoting what was erased.
    copies: int = 0
    #: The user's messages, not erased, that quote what was (memory/ops/erased_copies.py).
    quoted_by_user: list[int] = field(default_factory=list)
    purge_pending: bool = False
    not_reached: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class ErasedMemory(TieredMemory, Protocol):
    """What erasure uses of a memory (``HierarchicalMemory``)."""

    @property
    def purge(self) -> PurgeAfterErasure:
        ...

    @property
    def journal(self) -> Journal:
        ...

    @property
    def prompt_history(self) -> PromptHistory:
        ...

    @property
    def forgotten_norms(self) -> ForgottenNorms:
        ...

    def forget_requests(self, newest: int | None = None) -> list[ForgetRequest]:
        ...

    def erase(self, *, facts: Sequence[int] = (), passages: Sequence[int] = (),
              messages: Sequence[int] = (), reason: str) -> ErasureReport:
        ...


def erase(memory: ErasedMemory, facts: Iterable[int], passages: Iterable[int],
          messages: Iterable[int], reason: str, fulfils: int | None = None) -> ErasureReport:
    """The body of ``HierarchicalMemory.erase`` (module docstring); ``fulfils`` is the
    forget request this erasure was asked by, no longer pending once it commits."""
    fact_ids, passage_ids, message_ids = (_ids(facts, "facts"), _ids(passages, "passages"),
                                          _ids(messages, "messages"))
    reason = clean_text(reason, "erasure reason", 1000)
    store = memory.store
    with store.transaction():
        learned = store.facts.learned_from(message_ids) if message_ids else []
        filed = store.passages.filed_from(message_ids) if message_ids else []
        # Deleting returns forgotten rows too, which reads would not: the fact a named
        # passage was made from is known only once the passage is deleted.
        gone_passages = memory.archival.delete(list(dict.fromkeys([*passage_ids, *filed])))
        owners = [p.fact_id for p in gone_passages if p.fact_id is not None]
        all_facts = list(dict.fromkeys([*fact_ids, *learned, *owners]))
        gone_facts = memory.core.delete(all_facts)
        if gone_facts:
            # The totals are those of the facts stored (what diagnostics() and a reopen
            # sum): an erased fact's evictions and promotions leave them with it.
            memory.journal.reload()
        if all_facts:
            gone_passages += memory.archival.delete(store.passages.made_from(all_facts))
        # The messages of their turns that quote what goes (memory/ops/quoting.py), forgotten
        # ones too, go with it; their own text is not searched for in turn.
        sources = [*message_ids, *(f.source_message_id for f in gone_facts),
                   *(p.source_message_id for p in gone_passages)]
        # And the turn that moved a fact out of core, as forgetting takes it.
        retired_in = sorted({int(f.evicted_tick) for f in gone_facts
                             if f.evicted_tick is not None})
        turns = store.messages.in_turns_of([i for i in sources if i is not None],
                                           forgotten=True)
        named = set(message_ids)
        erased_texts = ([f.text for f in gone_facts] + [p.text for p in gone_passages]
                        + [m.content for m in turns if m.id in named])
        quoting_ids, users = users_apart(m for m in quoting_copies(
            turns, erased_texts, store.messages.in_turns(retired_in, forgotten=True),
            [f.text for f in gone_facts]) if m.id not in named)
        # And the copies other turns hold, in all of recall (memory/ops/erased_copies.py);
        # the user's messages quoting it are named, not taken.
        copy_ids, users_later = users_apart(copies_in_recall(
            store.messages, erased_texts, {*named, *quoting_ids, *users}))
        all_messages = [*message_ids, *quoting_ids, *copy_ids]
        gone_messages = (memory.recall.erase_messages(all_messages, reason)
                         if all_messages else [])
        texts = ([(f"fact:{f.id}", f.text) for f in gone_facts]
                 + [(f"passage:{p.id}", p.text) for p in gone_passages]
                 + [(f"message:{m.id}", m.content) for m in gone_messages])
        scrubbed = scrub_state(store.settings, erased_texts)
        # Lines kept outside the database (a chat's history under --no-history) too.
        memory.prompt_history.scrub([m.content for m in gone_messages if m.role == "user"],
                                    erased_texts)
        erased = bool(texts) or scrubbed > 0
        # What else names the erased text by a digest, which a short secret is recovered
        # from by trying every candidate: the hash that blocks a forgotten fact's
        # extraction, and the audit's hash of the request that forgot it.
        for fact in gone_facts:
            # Every key it may be blocked under, an earlier version's included.
            for norm in fact_norms(fact.text):
                store.forgetting.unblock(norm_hash(norm))
        if gone_facts:
            # The open memory's copy of the keys too: until it is reopened, extraction
            # would still refuse the fact, and a search name it as forgotten.
            memory.forgotten_norms.reload()
        if fulfils is not None:
            conceal_requests(store, [fulfils])
            _set_pending(store, [i for i in pending_erasures(store) if i != fulfils])
        if texts:
            conceal_requests(store, _asking_for(store, gone_facts, gone_passages,
                                                gone_messages))
        if erased:
            store.settings.set(ERASURES_KEY, erasure_count(memory) + 1)
            memory.purge.request()
    report = ErasureReport(
        facts=len(gone_facts), passages=len(gone_passages), messages=len(gone_messages),
        state_values=scrubbed, copies=len(set(copy_ids) & {m.id for m in gone_messages}),
        quoted_by_user=sorted({*users, *users_later}),
        digest=digest_of_all(part for pair in texts for part in pair))
    if not erased:
        return report
    if store.in_transaction:
        return ErasureReport(**{**asdict(report), "purge_pending": True})
    return ErasureReport(**{**asdict(report), "not_reached": memory.purge.not_reached})


class PurgeAfterErasure:
    """Purges a store, and writes its vector indexes' files again, after the outermost
    commit of a transaction that erased something.

    The request is also stored with the erasure and cleared once the purge is done: a
    process killed between the two leaves it, and the next session to open the memory
    for writing purges then, else the erased text would stay in the files for good."""

    def __init__(self, store: StorageBackend, *indexes: VectorIndex | None) -> None:
        self.store = store
        self.indexes = [index for index in indexes if index is not None]
        self.pending = False
        #: What the last purge could not reach, in words (``purge_erased``).
        self.not_reached: list[str] = []
        #: Whether opening finished the purge of an erasure an earlier process left.
        self.finished_on_open = False
        store.on_commit(self._run)
        store.on_rollback(self._cancel)
        if not store.read_only and store.settings.get(PURGE_PENDING_KEY) is not None:
            self.pending = True
            self._run()
            self.finished_on_open = not self.pending

    def request(self) -> None:
        """Purge when the current transaction commits (call inside it)."""
        self.pending = True
        self.store.settings.set(PURGE_PENDING_KEY, 1)

    def _cancel(self) -> None:
        if not self.store.in_transaction:  # the erasure was rolled back with the rest
            self.pending = False

    def _run(self) -> None:
        if not self.pending or self.store.read_only:
            return
        self.pending = False
        try:
            self.not_reached = self.store.purge_erased()
            for index in self.indexes:
                index.save()
            with self.store.transaction():
                self.store.settings.delete([PURGE_PENDING_KEY])
        except (TiermemError, OSError) as exc:
            # The rows are gone already; what failed is clearing their old bytes. The
            # next commit (closing the memory commits) tries again.
            self.pending = True
            self.not_reached = [f"the purge after the erasure failed ({exc}); free what the "
                                f"error names, then close the memory or erase again"]


def _asking_for(store: StorageBackend, facts: Iterable[Fact], passages: Iterable[Passage],
                messages: Iterable[Message]) -> list[int]:
    """The forget requests whose hash could check a guess at what an erasure took: those
    that forgot a row of it (their text, in exact mode, is that row's), and those that
    forgot nothing (a request mistyped, or made again once the row was gone, quotes it as
    well; no later request is compared with their hashes)."""
    taken = ({("f", r.id) for r in facts} | {("p", r.id) for r in passages}
             | {("m", r.id) for r in messages})
    return [request.id for request in store.forgetting.requests()
            if not request.forgotten or taken & {
                *(("f", i) for i in request.forgotten.facts),
                *(("p", i) for i in request.forgotten.passages),
                *(("m", i) for i in request.forgotten.messages)}]


def conceal_requests(store: StorageBackend, audit_ids: Sequence[int]) -> None:
    """Replace the audit's hashes of these forget requests with random values: the
    request stays recorded, but its text can no longer be checked against it."""
    store.forgetting.conceal(audit_ids, [secrets.token_hex(32) for _ in audit_ids])


def erasure_count(memory: ErasedMemory) -> int:
    """How many erasures (and forget requests) removed something from this memory so far:
    a layer keeping its own copies, such as a summary, rebuilds them when it changes."""
    return int(memory.store.settings.get(ERASURES_KEY, "0") or 0)


def promise_erasure(store: StorageBackend, audit_id: int) -> None:
    """Mark forget request ``audit_id`` as to be erased (call in the transaction that
    forgets, so a forget asked to erase is never committed without the mark)."""
    _set_pending(store, [*pending_erasures(store), audit_id])


def pending_erasures(store: StorageBackend) -> list[int]:
    """The forget requests whose erasure was asked for and has not committed yet."""
    return [int(part) for part in (store.settings.get(ERASE_PENDING_KEY) or "").split()]


def resume_erasures(memory: ErasedMemory) -> list[int]:
    """Erase what the forget requests still pending forgot (module docstring); returns
    their audit ids."""
    pending = pending_erasures(memory.store)
    if not pending:
        return []
    audit = {request.id: request for request in memory.store.forgetting.requests()}
    for audit_id in pending:
        # A request missing from the audit forgot nothing this store holds: the erasure
        # only clears the mark.
        done = audit[audit_id].forgotten if audit_id in audit else None
        erase(memory, done.facts if done else (), done.passages if done else (),
              done.messages if done else (), forget_reason(audit_id), fulfils=audit_id)
    return pending


def forget_reason(audit_id: int) -> str:
    """The reason recorded with what a forget request erased: it names the audit row,
    never the request, which quotes what went."""
    return f"forget request #{audit_id}"


def _set_pending(store: StorageBackend, audit_ids: list[int]) -> None:
    if audit_ids:
        store.settings.set(ERASE_PENDING_KEY, " ".join(str(i) for i in dict.fromkeys(audit_ids)))
    elif store.settings.get(ERASE_PENDING_KEY) is not None:
        store.settings.delete([ERASE_PENDING_KEY])


def erase_forgotten(memory: ErasedMemory, reason: str) -> ErasureReport:
    """The body of ``HierarchicalMemory.erase_forgotten``: every row the forget audit lists
    as forgotten, erased."""
    facts: set[int] = set()
    passages: set[int] = set()
    messages: set[int] = set()
    requests = memory.forget_requests()
    for request in requests:
        facts.update(request.forgotten.facts)
        passages.update(request.forgotten.passages)
        messages.update(request.forgotten.messages)
    if requests:
        # First, in its own commit: stopped between the two, the audit holds no checkable
        # hash of a request whose rows are still there, never the other way round.
        with memory.store.transaction():
            conceal_requests(memory.store, [r.id for r in requests])
    return memory.erase(facts=sorted(facts), passages=sorted(passages),
                        messages=sorted(messages), reason=reason)


def _ids(values: Iterable[int], what: str) -> list[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InvalidInputError(f"{what} must be a list of ids (integers), like [3, 7]")
    ids = []
    for value in values:
        number = integral(value)
        if number is None or not 1 <= number <= MAX_ID:
            raise InvalidInputError(f"{what} must hold ids (positive integers), got {value!r}")
        ids.append(number)
    return list(dict.fromkeys(ids))


__all__ = ["ERASE_PENDING_KEY", "ERASURES_KEY", "ErasedMemory", "ErasureReport",
           "PurgeAfterErasure", "erase", "erase_forgotten", "erasure_count", "forget_reason",
           "pending_erasures", "promise_erasure", "resume_erasures"]
