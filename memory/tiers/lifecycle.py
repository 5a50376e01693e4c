"""What happens to a fact: admission to core, eviction to archival, promotion back, edits.

What counts as an access of a core fact (``touch``): a re-assertion of the
same normalised text, a replace that edits it, and a search hit the caller
used (``HierarchicalMemory.query(touch=True)``, of a fact the query is about:
memory.ops.searches.facts_about). A fact counts at most once
per interaction, so repeating a planted fact within one turn cannot raise its
frequency. For an archived fact the same events count as *hits* toward
promotion: it returns to core after ``promote_hits`` hits, or
``recent_promote_hits`` if it was evicted within ``hysteresis_window``
interactions: an archived fact counts at most one hit per interaction, so a fact
evicted recently returns only after hits in that many separate interactions, which
slows a fact's cycling between the tiers but does not forbid it (diagnostics flag a
fact that keeps cycling: ``promote_evict_cycles``). A used search hit is
one of ``query(touch=True)`` or ``archival_search(touch=True)`` (which the
agent's ``archival_memory_search`` tool passes). An archived fact stated again
while core has room for it returns at once: nothing is evicted for it, so it
moves nothing out; with core full, the re-assertion is a hit like any other.

A fact larger than all of core (``CoreTier.holds``) never enters it: added, it goes
straight to archival; edited to that size, it moves there with its new text, as an
eviction. Either way the journal's ``oversize`` event says why, and nothing is refused or
lost, since eviction is not deletion.

A fact emptied by a replace is *retired*: it leaves core like an evicted one,
and its passage is marked ``superseded_at``, because a fact is removed from
core when it stopped being true (eviction makes room on its own). A
superseded fact is never promoted by search hits; stating it again makes it
current: the mark goes and it returns to core at once.

Every method runs inside the caller's transaction; the hierarchy validates
input first, so a rejected edit raises before anything here mutates.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from tiermem.memory.config import MemoryConfig
from tiermem.memory.errors import InvalidInputError, MemoryLimitError
from tiermem.memory.store.contract import SettingsStore
from tiermem.memory.store.records import SUPERSEDED_AT
from tiermem.memory.text.digest import replaced_detail
from tiermem.memory.text.extract import fact_norm
from tiermem.memory.tiers.archival import BLANK_FACT_PASSAGE, ArchivalTier
from tiermem.memory.tiers.core import CoreTier
from tiermem.memory.tiers.journal import InteractionClock, Journal
from tiermem.memory.tiers.policies import EvictionPolicy
from tiermem.memory.types import Fact
from tiermem.memory.validation import MAX_TEXT_CHARS, clean_text

#: The event of a fact stored in archival because it is larger than all of core; its
#: detail is ``oversize_detail``'s.
OVERSIZE = "oversize"
#: Ends the passage of a fact an older version stored over the limit, cut to fit it.
CUT_MARK = " [cut]"


#: Stands in a passage for a character an older version stored that no passage may hold.
UNSTORABLE_MARK = "\ufffd"
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def archived_text(fact_text: str) -> str:
    """The text of a fact's passage: the fact's, but for a text an older version stored
    blank, over the limit, or holding a NUL or a lone surrogate, which no passage may
    hold. Such a fact must still leave a full core, so its passage says it had no text,
    holds its text cut to the limit, or holds it with each such character replaced by
    U+FFFD; the fact keeps its text as stored."""
    text = _UNSTORABLE.sub(UNSTORABLE_MARK, fact_text).strip()
    if not text:
        return BLANK_FACT_PASSAGE
    if len(text) > MAX_TEXT_CHARS:
        return text[:MAX_TEXT_CHARS - len(CUT_MARK)].rstrip() + CUT_MARK
    return text


class FactLifecycle:
    """The moves of facts between core and archival for one memory."""

    def __init__(self, core: CoreTier, archival: ArchivalTier, settings: SettingsStore,
                 clock: InteractionClock, journal: Journal, config: MemoryConfig,
                 policy: EvictionPolicy, count_tokens: Callable[[str], int]) -> None:
        self.core = core
        self.archival = archival
        self.settings = settings
        self.clock = clock
        self.journal = journal
        self.config = config
        self.policy = policy
        self.count_tokens = count_tokens

    def admit(self, text: str, norm: str, durability: str, source: str, size: int,
              source_message_id: int | None = None) -> int:
        """A new fact: into core, evicting per policy; straight to archival when it is larger
        than all of core, or when the policy protects every fact that could make room."""
        now, clock = self.clock.now(), self.clock.clock_now()
        fact = Fact(id=-1, text=text, durability=durability, created_at=now,
                    created_tick=clock, last_access=clock, access_count=1, source=source,
                    tokens=self.count_tokens(text), last_counted_tick=self.clock.tick,
                    entered_core_seq=self.next_seq(), source_message_id=source_message_id)
        if not self.core.holds(size):
            return self._file(fact, norm, OVERSIZE, self.oversize_detail(size))
        victims = self.core.plan_room(fact, size)
        if victims is None:
            return self._file(fact, norm, "bypass", "core is full of facts the policy protects")
        for victim in victims:
            self.evict(victim)
        self.core.insert(fact, norm)
        self.journal.record("add", fact, durability)
        return fact.id

    def _file(self, fact: Fact, norm: str, kind: str, why: str) -> int:
        """A new fact that cannot enter core, stored in archival instead (its passage is
        not marked ``was_in_core``: it never was)."""
        fact.tier = "archival"
        self.core.insert(fact, norm)
        fact.passage_id = self.archival.insert(
            fact.text, source=fact.source, created_at=fact.created_at, fact_id=fact.id,
            tags=[fact.durability])
        self.core.save(fact)
        self.journal.record(kind, fact, why)
        return fact.id

    def oversize_detail(self, size: int) -> str:
        """Why a fact of ``size`` units is in archival, not core (sizes only: an event's
        detail never quotes the fact)."""
        return f"{size} {self.core.unit}; core holds {self.core.limit}"

    def next_seq(self) -> int:
        settings = self.settings
        seq = int(settings.get("core_seq", "0") or 0) + 1
        settings.set("core_seq", seq)
        return seq

    def reassert(self, fact: Fact, durability: str) -> int:
        """The same fact stated again: an access (in core) or a hit (in archival)."""
        changed = fact.durability != durability
        fact.durability = durability
        if fact.tier == "core":
            self.touch(fact, force_save=changed)
        elif changed:
            self.core.save(fact)
        if changed:
            self.journal.record("reclassify", fact, durability)
        if fact.tier != "core":
            if self.superseded(fact):
                self.reinstate(fact)
            elif self.core.used + self.core.size(fact) <= self.core.limit:
                self.restate(fact)
            else:
                self.archival_hit(fact)
        return fact.id

    def restate(self, fact: Fact) -> None:
        """An archived fact stated again while core has room for it: back to core at once.

        Nothing is evicted for it (with core full, a re-assertion is only a hit toward
        promotion), so it needs no hits: being stated is a use.
        """
        if fact.last_counted_tick != self.clock.tick:
            fact.last_counted_tick = self.clock.tick
            fact.access_count += 1
            fact.last_access = self.clock.clock_now()
        self._enter_core(fact, "stated again with room in core")

    def reinstate(self, fact: Fact) -> None:
        """A superseded fact stated again is current again: unmark it and bring it back to core.

        It needs no further hits, since being stated is what makes a fact current;
        if core cannot make room for it, it stays in archival, unmarked.
        """
        assert fact.passage_id is not None  # a superseded fact has its passage
        self.archival.update_metadata(fact.passage_id, {SUPERSEDED_AT: None})
        fact.last_counted_tick = self.clock.tick
        fact.access_count += 1
        fact.last_access = self.clock.clock_now()
        if self.core.holds(self.core.size(fact)) and self.make_room(fact, self.core.size(fact)):
            self._enter_core(fact, "stated again after being superseded")
        else:
            self.core.save(fact)

    def count_use(self, fact_ids: Iterable[int]) -> None:
        """Search hits the caller used: an access of a core fact, a hit toward promotion of
        an archived one."""
        for fact_id in fact_ids:
            fact = self.core.load(fact_id)
            if fact is None:
                continue
            if fact.tier == "core":
                self.touch(fact)
            else:
                self.archival_hit(fact)

    def touch(self, fact: Fact, force_save: bool = False) -> None:
        """Count an access of a core fact, once per interaction."""
        if fact.last_counted_tick != self.clock.tick:
            fact.access_count += 1
            fact.last_access = self.clock.clock_now()
            fact.last_counted_tick = self.clock.tick
        elif not force_save:
            return
        self.core.save(fact)

    def evict(self, fact: Fact) -> None:
        """Move a core fact to archival (its passage is created or updated), never delete it."""
        self._to_archival(fact)
        self.journal.record("evict", fact, f"policy={self.policy.name}")

    def retire(self, fact: Fact) -> None:
        """A core fact that is no longer true: to archival, its passage marked superseded.

        Searches still find it, marked with when it stopped being current; it is not
        promoted back by search hits, only by being stated again (``reassert``).
        """
        # Not an eviction: the fact left core for being untrue, not for room, and counted
        # so it would read as pressure on a core that is nearly empty.
        self._to_archival(fact, evicted=False)
        assert fact.passage_id is not None  # _to_archival gave it one
        self.archival.update_metadata(fact.passage_id, {SUPERSEDED_AT: self.clock.now()})
        self.journal.record("retire", fact, "superseded: no longer current")

    def superseded(self, fact: Fact) -> bool:
        """Whether the fact was retired as no longer true (and not stated again since)."""
        if fact.passage_id is None:
            return False
        passage = self.archival.get_many([fact.passage_id]).get(fact.passage_id)
        return passage is not None and SUPERSEDED_AT in passage.metadata

    def _to_archival(self, fact: Fact, norm: str | None = None, evicted: bool = True) -> None:
        now = self.clock.now()
        if fact.passage_id is None:
            fact.passage_id = self.archival.insert(
                archived_text(fact.text), source=f"core:{fact.source}",
                created_at=fact.created_at, was_in_core=True, evicted_at=now,
                fact_id=fact.id, tags=[fact.durability])
        else:
            self.archival.mark_evicted(fact.passage_id, now)
            self.archival.replace_text(fact.passage_id, archived_text(fact.text))
        fact.tier = "archival"
        fact.evicted_at, fact.evicted_tick = now, float(self.clock.tick)
        if evicted:
            fact.evictions += 1
            self.journal.totals["evictions"] += 1
            # A retirement ends no cycle either: a state said on and off again ("the
            # freeze is on") would read as eviction that cannot hold its facts.
            fact.cycles += fact.promotions > 0
        fact.hits_since_eviction = 0
        self.core.save(fact, norm)

    def make_room(self, incoming: Fact | None, extra: int, exclude: int | None = None) -> bool:
        """Evict what the policy allows so ``extra`` more units fit; False if it cannot."""
        probe = incoming or Fact(id=-1, text="", durability="durable", created_at=0,
                                 created_tick=0, last_access=0, access_count=1, source="",
                                 tokens=0)
        victims = self.core.plan_room(probe, extra, exclude=exclude)
        if victims is None:
            return False
        for victim in victims:
            self.evict(victim)
        return True

    def archival_hit(self, fact: Fact) -> None:
        """A re-assertion or used search hit of an archived fact; may promote it back."""
        if fact.last_counted_tick == self.clock.tick or self.superseded(fact):
            return  # a superseded fact comes back only when stated again
        fact.last_counted_tick = self.clock.tick
        fact.hits_since_eviction += 1
        needed = self.hits_needed(fact)
        if fact.hits_since_eviction >= needed and self.core.holds(self.core.size(fact)):
            fact.access_count += 1
            fact.last_access = self.clock.clock_now()
            if self.make_room(fact, self.core.size(fact)):
                self._enter_core(fact, f"after {needed} hits")
                return
            fact.access_count -= 1
        self.core.save(fact)

    def hits_needed(self, fact: Fact) -> int:
        """The hits an archived fact needs to return to core: more if it was evicted within
        ``hysteresis_window`` interactions."""
        recent = (fact.evicted_tick is not None
                  and self.clock.tick - fact.evicted_tick < self.config.hysteresis_window)
        return self.config.recent_promote_hits if recent else self.config.promote_hits

    def _enter_core(self, fact: Fact, why: str) -> None:
        """Promote an archived fact back into core (room already made)."""
        fact.tier = "core"
        fact.promotions += 1
        self.journal.totals["promotions"] += 1
        fact.hits_since_eviction = 0
        fact.entered_core_seq = self.next_seq()
        # Evicted no longer, as its passage says below: a fact in core carries no eviction
        # date (the next eviction sets both anew, and only an archived fact's is read).
        fact.evicted_at = fact.evicted_tick = None
        self.core.save(fact)
        if fact.passage_id is not None:
            # The passage stays as the fact's archival copy, but it is evicted no longer:
            # a search must not date an eviction that was undone.
            self.archival.clear_evicted(fact.passage_id)
        self.journal.record("promote", fact, why)

    def edit(self, fact: Fact, old: str, new_content: str) -> int:
        """Replace ``old`` in a core fact; an empty result retires the fact to archival, and
        one larger than all of core moves there with its new text."""
        new_text = fact.text.replace(old, new_content, 1).strip()
        if not new_text:
            self.retire(fact)
            return fact.id
        new_text = clean_text(new_text, "new fact text")
        norm = fact_norm(new_text)
        other = self.core.find_same(new_text)
        if other is not None and other.id != fact.id:
            raise InvalidInputError(
                f"memory already has that fact (#{other.id}, in {other.tier}); "
                f"replace this one with '' instead"
            )
        new_size = self.core.size_of_text(new_text)
        if not self.core.holds(new_size):
            return self._edit_out(fact, old, new_text, norm, new_size)
        edited = Fact(**{**fact.to_dict(), "text": new_text})
        if not self.make_room(edited, new_size - self.core.size(fact), exclude=fact.id):
            raise MemoryLimitError(
                "the edit does not fit: every fact that could make room is protected by "
                f"the {self.policy.name} policy; shorten the edit or remove a fact first"
            )
        fact.text, fact.tokens = new_text, self.count_tokens(new_text)
        self.touch(fact, force_save=True)
        self.core.save(fact, norm=norm)
        if fact.passage_id is not None:
            # The passage an earlier eviction made is the fact's archival copy: it takes
            # the new text now, so no search finds the old one.
            self.archival.replace_text(fact.passage_id, new_text)
        self.journal.record("replace", fact, replaced_detail(old))
        return fact.id

    def _edit_out(self, fact: Fact, old: str, new_text: str, norm: str, size: int) -> int:
        """An edit that makes a core fact larger than all of core: the edited fact moves to
        archival, evicted, rather than the edit being refused (which would lose it)."""
        self.touch(fact)
        fact.text, fact.tokens = new_text, self.count_tokens(new_text)
        self._to_archival(fact, norm)
        self.journal.record("replace", fact, replaced_detail(old))
        self.journal.record(OVERSIZE, fact, self.oversize_detail(size))
        return fact.id
