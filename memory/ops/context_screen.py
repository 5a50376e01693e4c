"""What a recall hit found through its context must not tell: the privacy screen of recall's
searches, context included.

Full-text search sees each message together with the text of the one before it
(memory/tiers/recall.py). When the privacy policy withholds that earlier message for a
request, its words still find the message after it: a search for a withheld diagnosis would
list the reply "Noted, I will remember that.", and so tell that the diagnosis was said just
before it. So a hit is shown only if the policy shows it and, when the policy withholds its
context, it matches the request on its own: by its own words, or by meaning (its vector is
of its own text). Its own words are checked against the words the search matched, so a
word of the request that search left out (one found in most messages, such as a speaker's
name) does not pass it. A hit that carries no similarity is read as found by words: the hits
a search screens before ranking them (the questions of memory/search/replies.py) carry no
scores yet, and reciprocal rank fusion keeps none, so under it such a hit must match by its
own words. A reply the lift added has its question as context, and a question withheld lifts
nothing, so the rule never removes a lifted reply. Without a recall layer nothing is
withheld, and nothing is looked up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tiermem.memory.ops.protocols import GuardedMemory, TieredMemory
from tiermem.memory.types import Hit


class ScreenedMemory(TieredMemory, GuardedMemory, Protocol):
    """What the screen reads of a memory (``HierarchicalMemory``)."""


def shown_with_context(memory: ScreenedMemory, request: str, hits: Sequence[Hit],
                       decided_for: str | None = None) -> list[bool]:
    """Whether each of ``hits`` may be shown for ``request`` (module docstring): the words
    searched. The policy decides for ``decided_for`` when given (``""``: for no query, as a
    tool's result is read), else for ``request``."""
    privacy = memory.privacy
    if privacy is None or not privacy.recall_enabled:
        return [True] * len(hits)
    asked = request if decided_for is None else decided_for
    shown = privacy.allow_hits(asked, list(hits))
    by_words = [i for i, (h, ok) in enumerate(zip(hits, shown, strict=True))
                if ok and h.tier == "recall" and h.similarity is None]
    if not by_words:
        return shown
    context_of = memory.store.messages.context_sources([hits[i].id for i in by_words])
    contexts = list(memory.recall.get_many(sorted(set(context_of.values()))).values())
    context_shown = dict(zip((c.id for c in contexts),
                             privacy.allow_hits(asked, contexts), strict=True))
    hidden = [i for i in by_words if hits[i].id in context_of
              and not context_shown.get(context_of[hits[i].id], True)]
    if not hidden:
        return shown
    own = memory.store.messages.matching_own_text(memory.recall.searched_terms(request),
                                                  [hits[i].id for i in hidden])
    for i in hidden:
        shown[i] = hits[i].id in own
    return shown
