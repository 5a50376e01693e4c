"""The lexical side of search, whatever the backend: a query's terms and common-word pruning.

A query's terms are its content words (stopwords out), lowercased, plus the
stand-in words of its symbols; the backend's full-text index matches any of
them (``LexicalIndex`` in memory/store/contract/indexes.py). A word found in
more than half of the rows is pruned from a query that has other words
(``lexical_query_text``): BM25 gives it an idf of almost zero, so it ranks
nothing, yet it would make most rows matches.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tiermem.memory.store.contract import LexicalIndex
from tiermem.memory.text.symbols import symbol_words

if TYPE_CHECKING:
    from tiermem.memory.search.fusion_weights import FusionWeights

#: Below this many rows, document frequencies are too coarse to call a word uninformative.
PRUNE_MIN_ROWS = 50

# Words that carry no topic; without them FTS5 would OR-match nearly every row.
STOPWORDS = frozenset(
    {
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are",
        "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
        "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for",
        "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself",
        "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
        "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on",
        "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same",
        "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
        "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
        "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which",
        "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
        "yourselves", "s", "t", "don", "ll", "ve", "re", "d", "m", "o", "y", "ain", "aren",
        "couldn", "didn", "doesn", "hadn", "hasn", "haven", "isn", "ma", "mightn", "mustn",
        "needn", "shan", "shouldn", "wasn", "weren", "won", "wouldn", "also", "get", "got", "tell",
        "know", "remember", "ever",
    }
)
_TERM = re.compile(r"[^\W_]+", re.UNICODE)
_SPACES = re.compile(r"\s+")


def query_terms(text: str) -> list[str]:
    """Content words of a query, lowercased, de-duplicated, in order; then the stand-in
    words of its emoji and other symbols, which the index holds (memory/text/symbols.py)."""
    seen: dict[str, None] = {}
    for word in _TERM.findall(text.lower()):
        if word not in STOPWORDS and (len(word) > 1 or word.isdigit()):
            seen.setdefault(word, None)
    for word in symbol_words(text):
        seen.setdefault(word, None)
    return list(seen)


def common_terms(lexical: LexicalIndex, terms: list[str], rows: int) -> set[str]:
    """The ``terms`` that occur in more than half of the ``rows`` rows ``lexical`` indexes;
    none below ``PRUNE_MIN_ROWS`` rows."""
    if rows < PRUNE_MIN_ROWS or not terms:
        return set()
    return lexical.common_terms(terms, rows)


def without_words(text: str, words: set[str]) -> str:
    """``text`` with every occurrence of ``words`` (and a possessive 's after it) removed."""
    if not words:
        return text
    pattern = re.compile(
        r"(?<![^\W_])(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        + r")(?:['’]s)?(?![^\W_])",
        re.IGNORECASE,
    )
    return _SPACES.sub(" ", pattern.sub(" ", text)).strip()


def dense_query_text(lexical: LexicalIndex, query: str, rows: int) -> str:
    """The text to embed for ``query``: without words common to most rows, if any remain."""
    terms = query_terms(query)
    if len(terms) < 2:  # a lone word stays whatever its frequency: no need to count it
        return query
    common = common_terms(lexical, terms, rows)
    if not common or common.issuperset(terms):
        return query
    return without_words(query, common)


def lexical_query_text(
    lexical: LexicalIndex, query: str, weights: FusionWeights, rows: int) -> str:
    """The query for full-text search: without words found in most rows (when ``prune_common``).

    Such a word gets almost no BM25 weight, so it ranks nothing, yet it would
    make most rows matches to score, sort and count. Rows matching the other
    words keep their order, except where their BM25 ties to within FTS5's
    1e-6 idf floor: ties go by id. A lone word is kept whatever its frequency.
    """
    if not weights.prune_common:
        return query
    return dense_query_text(lexical, query, rows)
