"""A second retrieval round from the first round's best hits (offline, no model).

Some questions need turns that share no word with the question: "Where has
Melanie camped?" finds the turn about camping in the forest, but the turn
about "the beach" names the camping trip only as "another trip". What the
first round's best hits say (the names, places, dates and rare words the
question does not hold) often names what the missing evidence is about.

``second_round`` reads the words of the first round's ``seeds`` best hits,
keeps those not in the question and not common in the store, and searches
again with the question followed by them. The two rankings are fused: a
hit keeps its first-round score and gains ``discount`` times its second-round
score, so the first round's order is moved only by evidence found twice,
and a hit only the second round found scores at most ``discount``. The
first round's ``keep`` best hits keep their places whatever the second round
finds.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.search.lexical import STOPWORDS, query_terms
from tiermem.memory.types import Hit, SearchResult

#: A search: (query, k) to its best ``k`` hits, best first.
HitSearch = Callable[[str, int], list[Hit]]

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)


@dataclass(frozen=True)
class HopSettings:
    """How the second round is drawn from the first and fused with it."""

    seeds: int = 3
    terms: int = 6
    discount: float = 0.5
    keep: int = 5
    #: The first round's depth, as a multiple of ``k``: more hits to re-rank.
    pool: int = 2

    def __post_init__(self) -> None:
        defaults = {f.name: f.default for f in dataclasses.fields(self)}
        for name, least in (("seeds", 1), ("terms", 1), ("pool", 1), ("keep", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise InvalidInputError(
                    f"HopSettings.{name} must be an integer of at least {least}, got "
                    f"{value!r:.80}; leave it out for the default, {defaults[name]}")
        discount = self.discount
        if (isinstance(discount, bool) or not isinstance(discount, (int, float))
                or not 0 < discount <= 1):
            raise InvalidInputError(
                f"HopSettings.discount must be a number above 0 and at most 1, got "
                f"{discount!r:.80}; leave it out for the default, {defaults['discount']}")


def expansion_terms(question: str, seeds: Sequence[str], most: int,
                    common: Callable[[list[str]], set[str]] = lambda terms: set()) -> list[str]:
    """Up to ``most`` words of the ``seeds`` texts that the question lacks, best first.

    A word scores one per seed it occurs in, and one more when it is written
    as a name (capitalised inside a sentence) or is a number: names and dates
    are what links one turn to another. ``common`` names the words too frequent
    in the store to link anything; they are left out.
    """
    asked = set(query_terms(question))
    counts: Counter[str] = Counter()
    named: set[str] = set()
    first_seen: dict[str, int] = {}
    for text in seeds:
        seen: set[str] = set()
        for position, match in enumerate(_WORD.finditer(text)):
            word = match.group()
            lower = word.lower().split("'")[0].split("’")[0]
            if lower in STOPWORDS or lower in asked or (len(lower) < 3 and not lower.isdigit()):
                continue
            if word[0].isupper() and position > 0 and not _sentence_start(text, match.start()):
                named.add(lower)
            if word.isdigit():
                named.add(lower)
            first_seen.setdefault(lower, len(first_seen))
            seen.add(lower)
        counts.update(seen)
    candidates = sorted(counts, key=lambda w: (-(counts[w] + (w in named)), first_seen[w]))
    dropped = common(candidates[: 3 * most]) if candidates else set()
    return [w for w in candidates if w not in dropped][:most]


def _sentence_start(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    return not before or before[-1] in ".!?:\n\"'("


def same_item(hit: Hit) -> Hashable:
    """What a hit stands for: its row in its tier."""
    return hit.tier, hit.id


def fuse_rounds(first: Sequence[Hit], second: Sequence[Hit], k: int, settings: HopSettings,
                pinned: Callable[[Hit], bool] = lambda hit: False,
                key: Callable[[Hit], Hashable] = same_item) -> list[Hit]:
    """The best ``k`` of both rounds (module docstring); hits with one ``key`` are one item.

    The first ``keep`` hits of the first round come first in their order; the
    rest go by fused score, and the first round's ``pinned`` hits among its
    best ``k`` stay among the ``k`` returned.
    """
    scores = {key(h): h.score for h in first}
    hits = {key(h): h for h in first}
    for hit in second:
        hits.setdefault(key(hit), hit)
        scores[key(hit)] = scores.get(key(hit), 0.0) + settings.discount * hit.score
    kept = [key(h) for h in first[: min(settings.keep, k)]]
    held = set(kept)
    order = [*kept, *sorted((name for name in scores if name not in held),
                            key=lambda name: -scores[name])]
    # A pinned hit stays among the best k, in its fused place, instead of the weakest other.
    must = held | {key(h) for h in first[:k] if pinned(h)}
    chosen = set(must)
    chosen.update([name for name in order if name not in must][: max(k - len(must), 0)])
    out = []
    for name in order:
        if name in chosen:
            out.append(dataclasses.replace(hits[name], score=scores[name]))
    return out


def second_round(search: HitSearch, question: str, k: int, settings: HopSettings,
                 text_of: Callable[[Hit], str] = lambda hit: hit.text,
                 common: Callable[[list[str]], set[str]] = lambda terms: set(),
                 pinned: Callable[[Hit], bool] = lambda hit: False,
                 key: Callable[[Hit], Hashable] = same_item) -> list[Hit]:
    """The best ``k`` hits for ``question`` after a second round (module docstring).

    ``search`` runs both rounds; ``pinned`` hits of the first round's best ``k``
    keep a place as the first ``keep`` do (a cross-tier query pins core's matches);
    hits with one ``key`` are one item (a fact and the message it was learned from).
    """
    first = search(question, settings.pool * k)
    words = expansion_terms(question, [text_of(h) for h in first[: settings.seeds]],
                            settings.terms, common)
    if not words:
        return first[:k]
    second = search(f"{question} {' '.join(words)}", settings.pool * k)
    return fuse_rounds(first, second, k, settings, pinned, key)


def hop_page(search: Callable[[str, int], SearchResult], question: str, k: int, page: int,
             settings: HopSettings, common: Callable[[list[str]], set[str]]) -> SearchResult:
    """``second_round`` as a tier search's page; ``total`` is the first round's."""
    if page != 1:
        raise InvalidInputError("a second search round re-ranks the first page only: ask page 1,"
                                " or search without the second round to page further")
    totals: list[SearchResult] = []

    def hits(text: str, n: int) -> list[Hit]:
        result = search(text, n)
        totals.append(result)
        return result.hits

    found = second_round(hits, question, k, settings, common=common)
    first = totals[0]
    return SearchResult(hits=found, total=max(first.total, len(found)), page=1, page_size=k,
                        total_exact=first.total_exact, unchecked=first.unchecked)
