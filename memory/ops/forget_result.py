"""How a forget request ended (``HierarchicalMemory.forget``'s result, memory/ops/forget.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tiermem.memory.ops.erase import ErasureReport
from tiermem.memory.store.records import Forgotten
from tiermem.memory.text.counts import erased_counted

__all__ = ["ForgetResult"]


@dataclass(frozen=True)
class ForgetResult:
    """How a request ended: ``outcome`` is ``matched`` (something was forgotten),
    ``unmatched`` (nothing targeted), ``ambiguous`` or ``failed`` (nothing forgotten, and
    ``detail`` says why); ``forgotten`` holds the ids per table, for an erasure."""

    outcome: str
    mode: str
    forgotten: Forgotten
    audit_id: int
    detail: str = ""
    candidates: int = 0
    #: What physical erasure removed, when the request asked for it (``erase=True``).
    erasure: ErasureReport | None = None
    #: Of ``forgotten``, what the privacy policy shows the model, for a request it made
    #: (``shown_only``; None otherwise): all its answer may count. An item forgotten with
    #: one it was shown (a withheld fact learned from a shown message, a message taken only
    #: for quoting such a fact) stays uncounted.
    shown: Forgotten | None = None
    #: The messages the facts forgotten were learned from (``Fact.source_message_id``) that
    #: were not forgotten with them: they still say what the facts said, and conversation
    #: search still finds it (forget them too, by their text, to have it gone).
    sources_kept: tuple[int, ...] = ()

    @property
    def quoted_by_user(self) -> tuple[int, ...]:
        """The user's messages the erasure asked kept that quote what it erased
        (``ErasureReport.quoted_by_user``): to erase them too, by their whole text."""
        return () if self.erasure is None else tuple(self.erasure.quoted_by_user)

    @property
    def count(self) -> int:
        """How many rows were forgotten (a fact and its passage count as two)."""
        done = self.forgotten
        return len(done.facts) + len(done.passages) + len(done.messages)

    def in_words(self, *notes: str) -> str:
        """What the request took, counted per table: what the erasure removed when it asked
        one (other turns' copies of it included), else what was forgotten; ``notes`` follow
        in one pair of brackets: "6 messages (2 of them copies in other turns; audit #1)"."""
        done, erased = self.forgotten, self.erasure
        if erased is None:
            return erased_counted(len(done.facts), len(done.passages), len(done.messages), 0,
                                  *notes)
        return erased_counted(erased.facts, erased.passages, erased.messages, erased.copies,
                              *notes)

    def to_dict(self) -> dict[str, Any]:
        done = self.forgotten
        return {"outcome": self.outcome, "mode": self.mode, "facts": list(done.facts),
                "passages": list(done.passages), "messages": list(done.messages),
                "audit_id": self.audit_id, "detail": self.detail,
                "candidates": self.candidates,
                "erasure": None if self.erasure is None else self.erasure.to_dict(),
                "sources_kept": list(self.sources_kept)}
