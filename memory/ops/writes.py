"""``HierarchicalMemory``'s writes of content (the facade binds these as its methods): a
fact into core (``add_fact``, ``replace_in_core``), a conversation turn with the facts
extracted from it (``process_interaction``), a passage into archival
(``archival_insert``); and the transaction a write runs in, with the history point an
interaction records.

Each write is checked whole (its text, the privacy policy's retention layer) before its
transaction begins, so a refused write changes nothing. A fact too large for core is not
refused: the lifecycle stores it in archival (memory/tiers/lifecycle.py).

The bodies read the memory through ``WrittenMemory``, the part of it they use, so this
module does not import the facade that imports it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from tiermem.memory.errors import InvalidInputError, RetentionDroppedError
from tiermem.memory.ops.forgotten_norms import ForgottenNorms
from tiermem.memory.ops.protocols import GuardedMemory, TieredMemory
from tiermem.memory.privacy.guard import PrivacyGuard
from tiermem.memory.privacy.retention import Masked
from tiermem.memory.store.records import HistoryPoint
from tiermem.memory.text.clauses import clauses_of
from tiermem.memory.text.extract import extract_facts, fact_norm
from tiermem.memory.text.updates import replaces, slot_of, stated_beside
from tiermem.memory.tiers.archival import NewPassage
from tiermem.memory.tiers.journal import InteractionClock
from tiermem.memory.tiers.lifecycle import FactLifecycle
from tiermem.memory.tiers.recall import NewMessage
from tiermem.memory.types import DURABILITIES, Fact, Hit
from tiermem.memory.validation import (
    check_created_at,
    check_label,
    check_message_id,
    clean_text,
)

#: The source of a fact extracted from a user message, before its turn number.
EXTRACTED = "extracted:turn:"


class WrittenMemory(TieredMemory, GuardedMemory, Protocol):
    """What the writes use of a memory (``HierarchicalMemory``)."""

    @property
    def lifecycle(self) -> FactLifecycle:
        ...

    @property
    def forgotten_norms(self) -> ForgottenNorms:
        ...

    @property
    def interactions(self) -> InteractionClock:
        ...

    @property
    def totals(self) -> dict[str, int]:
        ...

    def now(self) -> float:
        ...

    def interaction(self) -> AbstractContextManager[int]:
        ...


@contextlib.contextmanager
def writing(memory: WrittenMemory, advances_clock: bool = False) -> Iterator[None]:
    """The transaction of one write: with ``advances_clock``, an interaction of its own
    unless one is open; otherwise the store's (a savepoint inside an open one)."""
    if advances_clock and not memory.store.in_transaction:
        with memory.interaction():
            yield
    else:
        with memory.store.transaction():
            yield


def record_history(memory: WrittenMemory) -> None:
    """The history point that ends an interaction, with the search counters saved."""
    memory.store.history.record(HistoryPoint(
        tick=memory.interactions.tick, created_at=memory.now(), core_facts=len(memory.core),
        core_size=memory.core.used, durable_in_core=memory.core.durable_count,
        archival_passages=len(memory.archival), recall_messages=len(memory.recall),
        evictions=memory.totals["evictions"], promotions=memory.totals["promotions"]))
    for key, value in memory.counters.items():
        memory.store.settings.set(key, value)


def add_fact(memory: WrittenMemory, text: str, durability: str = "durable",
             source: str = "user", *, source_message_id: int | None = None) -> int:
    """Put a fact in core, evicting per policy; returns its id.

    ``source_message_id`` names the recall message the fact was learned from:
    erasing that message erases the fact too.

    Re-adding the same normalised text counts as an access of the existing
    fact (and may update its durability) instead of duplicating it. A fact
    that alone exceeds ``core_limit`` goes straight to archival (an ``oversize``
    event says so), as does one for which the policy protects every possible
    victim (durable facts against a short-lived newcomer; a ``bypass`` event).
    A fact the privacy policy drops raises RetentionDroppedError and is stored nowhere.
    """
    return admit_fact(memory, text, durability, source, source_message_id)


def admit_fact(memory: WrittenMemory, text: str, durability: str, source: str,
               source_message_id: int | None, source_stored: bool = False) -> int:
    """``add_fact``'s body: a new fact admitted to core, or the one with the same
    normalised text re-asserted; returns its id. ``source_stored`` says the caller
    stored the source message itself, in this interaction: it is not read back."""
    text = clean_text(text, "fact")
    if durability not in DURABILITIES:
        raise InvalidInputError(
            f"durability must be 'durable' or 'short-lived', got {durability!r}"
        )
    check_label(source, "source", "where the fact came from, like 'api'")
    if memory.privacy is not None:
        memory.privacy.check_write(text, what="fact")
    if not source_stored:
        source_message_id = check_source_message(memory, source_message_id, "fact")
    norm = fact_norm(text)
    existing = memory.core.find_same(text)
    with writing(memory, advances_clock=True):
        if existing is not None:
            return memory.lifecycle.reassert(existing, durability)
        if not source.startswith(EXTRACTED):
            # Stated explicitly: a fact forgotten before is stored again, and extraction
            # may find it again too (memory/ops/forget.py).
            memory.forgotten_norms.lift(text)
        return memory.lifecycle.admit(text, norm, durability, source,
                                      memory.core.size_of_text(text), source_message_id)


def check_source_message(memory: WrittenMemory, message_id: int | None,
                         what: str) -> int | None:
    """``message_id``, as an int, when it names a message of recall; None for None.

    A link to no message would bind the item to whichever message later takes that id:
    erasing or forgetting that one would take the item with it. A forgotten message keeps
    its row until it is erased, so an item may still name it.
    """
    message_id = check_message_id(message_id)
    if message_id is None or memory.store.messages.get_many([message_id]):
        return message_id
    if any(m.id == message_id for m in memory.store.messages.in_turns_of([message_id],
                                                                        forgotten=True)):
        return message_id
    raise InvalidInputError(
        f"source_message_id {message_id} names no message in recall (never stored, or "
        f"erased); pass the id of the message the {what} came from, or None")


def replace_in_core(memory: WrittenMemory, old_content: str, new_content: str, *,
                    request: str = "") -> int:
    """Edit the one core fact containing ``old_content``; returns its id.

    ``old_content`` must occur exactly once across core. An empty result
    retires the fact to archival, marked superseded (never deletes it); a result
    larger than all of core moves to archival with its new text (an ``oversize``
    event). The edit is validated before anything changes: if it cannot fit even
    after evicting what the policy allows, MemoryLimitError is raised and core is
    untouched.

    Under a privacy policy only the facts its recall layer shows are matched: a fact
    shown as ``[withheld: CATEGORY]`` is found by no text, so neither an error (which
    quotes the facts matched) nor the edit's success confirms what it says. ``request``
    is the current query the prompt showed core for (``core_shown``): a policy whose
    recall layer judges by it shows, and so matches, the facts that prompt showed. An
    edit whose result the recall layer would withhold for ``request``, or whose result is
    the same fact as one it withholds (``find_same``), is refused whatever is stored, as
    a withheld result is, since its success (or "memory already has that fact") would
    confirm that text as a withheld fact's.
    """
    old = clean_text(old_content, "old_content")
    if not isinstance(new_content, str):
        raise InvalidInputError("new_content must be a string")
    shown, withheld = shown_core_facts(memory, request)
    matches = [f for f in shown if old in f.text]
    if not matches:
        hidden = (" (a fact the privacy policy withholds, shown as [withheld: CATEGORY], "
                  "is matched by no text)" if withheld else "")
        raise InvalidInputError(
            f"no core fact contains {old!r}; copy the text exactly as core shows it{hidden}"
        )
    if len(matches) > 1 or matches[0].text.count(old) > 1:
        listed = "; ".join(f"#{f.id}: {f.text[:60]!r}" for f in matches)
        raise InvalidInputError(
            f"{old!r} matches more than one place ({listed}); quote more of the fact"
        )
    if memory.privacy is not None and new_content.strip():
        edited = matches[0].text.replace(old, new_content, 1).strip()
        memory.privacy.check_write(edited, what="fact")
        [view] = memory.privacy.text_view(request, [edited])
        twin = memory.core.find_same(edited) if view == edited else None
        if twin is not None and twin.id != matches[0].id:
            # A shown text that is a withheld fact's twin by core's key (case, quotes, "my"
            # or "user's"): "memory already has that fact" would confirm that fact.
            [twin_view] = memory.privacy.core_view(request, [twin])
            view = twin_view if twin_view != twin.text else view
        if view != edited:
            # Refused before anything is compared with what is stored: the edit's answer
            # (done, or "memory already has that fact") would confirm a withheld fact.
            raise InvalidInputError(
                f"the edited fact would show as {view}: the privacy policy withholds it, so "
                f"it cannot be written over a fact shown; nothing was changed (add it as a "
                f"new fact instead, and replace this one with '' if it is no longer true)")
    fact = memory.core.get(matches[0].id)
    assert fact is not None  # matched among core's facts just now
    with writing(memory):
        return memory.lifecycle.edit(fact, old, new_content)


def shown_core_facts(memory: WrittenMemory, request: str = "") -> tuple[list[Fact], int]:
    """Core's facts whose text the privacy policy's recall layer shows for ``request``
    (the current query; none by default), and how many it withholds."""
    facts = list(memory.core)
    if memory.privacy is None or not facts:
        return facts, 0
    views = memory.privacy.core_view(request, facts)
    shown = [f for f, view in zip(facts, views, strict=True) if view == f.text]
    return shown, len(facts) - len(shown)


def process_interaction(
    memory: WrittenMemory, user_input: str, agent_response: str, *,
    created_at: float | None = None, speaker: str = "User",
) -> list[int]:
    """Log both messages to recall and add the facts extracted from the user's text.

    Returns the ids of the facts added or re-asserted. Under a privacy policy, a
    sentence its retention layer drops is stored as ``[withheld: CATEGORY]`` and no
    fact is extracted from it. A greeting's "I'm X" ("Hi, I'm Maya") names the speaker
    only while core holds no other name of theirs (``stated_beside``), and a new name
    ("My name is Ana") retires the one held (``retire_names``).
    """
    if not isinstance(speaker, str):
        raise InvalidInputError(
            f"speaker must be a string (the user's name, like 'Alice'), got "
            f"{type(speaker).__name__}")
    if speaker:  # stored in the facts it names: storable text, a name's length
        clean_text(speaker, "speaker", max_chars=200)
    user = masked(memory.privacy, clean_text(user_input, "user_input"))
    reply = masked(memory.privacy, clean_text(agent_response, "agent_response"))
    created_at = check_created_at(created_at)
    fact_ids: list[int] = []
    with memory.interaction() as turn:
        user_id, _ = memory.recall.append_many([
            NewMessage("user", user.text, turn, created_at=created_at),
            NewMessage("assistant", reply.text, turn, created_at=created_at),
        ])
        for said in extract_facts(user.kept, speaker=speaker):
            # "Hi, I'm Nervous" beside "User's name is Maya" is no new name; only an
            # introduction needs core's statements read.
            extracted = said if said.plain is None else stated_beside(
                said, [part for fact in memory.core.held() for part in clauses_of(fact.text)])
            text, formers = extracted.text, extracted.formers
            if any(memory.forgotten_norms.blocks(t) for t in (text, *formers)):
                continue  # forgotten on request: only an explicit add_fact stores it again
            # Stored in the words of an earlier version: re-assert it in them.
            text = next((former for former in formers
                         if memory.core.find_same(former) is not None), text)
            with contextlib.suppress(RetentionDroppedError):
                fact_ids.append(admit_fact(memory, text, extracted.durability,
                                           f"{EXTRACTED}{turn}", user_id, source_stored=True))
                retire_names(memory, text, fact_ids[-1])
    return fact_ids


def retire_names(memory: WrittenMemory, fact: str, fact_id: int) -> None:
    """Retire, as superseded, the core facts giving another name where ``fact`` gives one
    (``fact_id``, just stored: "User's name is Ana" retires "User's name is Maya"; "User's
    sister's name is Bea", the sister's), as the offline policy does: a name gives way to
    a name. A fact joining the old name to other statements is retired, and those stay
    as facts of their own, but for one forgotten. Other values stay beside the new one, as
    extraction only adds. Where core holds two names for it ("User's sister's name is Ana",
    "... is Bea"), it names two people, and which one a new name corrects is unknown: both
    stay."""
    names = [part for part in clauses_of(fact) if _names_someone_known(part)]
    if not names:
        return
    held = [(old, clauses_of(old.text)) for old in memory.core.held() if old.id != fact_id]
    replaced: set[str] = set()
    for name in names:
        given = {fact_norm(p) for _, parts in held for p in parts if replaces(name, p, None)}
        if len(given) == 1:
            replaced |= given
    for old, parts in held:
        gone = [p for p in parts if fact_norm(p) in replaced]
        if not gone:
            continue
        memory.lifecycle.retire(old)
        for other in (p for p in parts if p not in gone and p != old.text):
            if memory.forgotten_norms.blocks(other):
                # Forgotten on its own ("I live in Lisbon") while the compound stayed: not
                # brought back, and its block not lifted, as only an explicit add does.
                continue
            with contextlib.suppress(RetentionDroppedError):
                admit_fact(memory, other, old.durability, old.source, old.source_message_id,
                           source_stored=True)


def _names_someone_known(part: str) -> bool:
    """Whether ``part`` gives a name of someone the fact itself names ("User's name is Ana",
    "User's sister's name is Bea"); slot_of gives none to a name of whoever a pronoun stood
    for ("His name is Bob"), which neither retires nor is retired."""
    return re.search(r"(?:^|/|\s)name$", slot_of(part) or "") is not None


def masked(privacy: PrivacyGuard | None, text: str) -> Masked:
    """``text`` with what the privacy policy's retention layer drops withheld (all of it
    kept without a policy)."""
    return privacy.mask(text) if privacy is not None else Masked(text, text)


def archival_insert(
    memory: WrittenMemory, text: str, tags: Sequence[str] | None = None,
    metadata: dict[str, Any] | None = None, source: str = "agent",
    created_at: float | None = None, *, source_message_id: int | None = None,
) -> int:
    """File a passage in archival; returns its id (RetentionDroppedError, storing nothing,
    when the privacy policy drops it).

    ``source_message_id`` names the recall message the passage was filed from:
    erasing or forgetting that message takes the passage too.
    """
    # list("ops") would file it under 'o', 'p' and 's'; list(5) would raise TypeError.
    if isinstance(tags, str) or not isinstance(tags, Collection | None):
        raise InvalidInputError("tags must be a list of strings, like ['billing', 'acme']")
    source_message_id = check_source_message(memory, source_message_id, "passage")
    # Stored as given: bytes, a NUL or a lone surrogate would break snapshot() or restore().
    check_label(source, "source", "who filed the passage, like 'agent'")
    if memory.privacy is not None:
        memory.privacy.check_write(clean_text(text, "passage"), metadata if isinstance(
            metadata, dict) else None, what="passage")
    return memory.archival.insert_many([NewPassage(
        text=text, tags=list(tags or []), metadata=metadata or {}, source=source,
        created_at=created_at, source_message_id=source_message_id)])[0]


def archival_holding(memory: WrittenMemory, text: str) -> list[Hit]:
    """The passages, not forgotten, whose text is ``text`` as ``archival_insert`` stores it
    (stripped), oldest first: what filing it again would repeat. Read as stored: what the
    privacy policy shows of them is for the caller to ask."""
    return memory.archival.holding(clean_text(text, "passage"))
