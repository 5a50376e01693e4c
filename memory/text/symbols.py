"""Emoji and other symbols as searchable words.

FTS5's ``unicode61`` tokenizer treats a symbol as a separator when its
tables know it (🍕), so a search for "🍕" found nothing, and as part of a
word when they are older than the symbol (🥜, Unicode 9): "peanuts🥜" was one
word, which neither "peanuts" nor "🥜" found. Its options cannot fix that: a
symbol made a token character joins the letters around it.

So the full-text indexes read ``indexed_text(text)``: the text with each
symbol (Unicode category So: emoji, pictographs, dingbats) replaced by a
stand-in word between spaces, ``sym`` + its code point in hex + ``x`` ("🥜"
-> `` sym1f95cx ``): letters and digits only, which the porter stemmer
leaves alone. memory/store/sqlite/schema_search.py calls it from SQL
(memory/store/sqlite/connection.py registers it), and a query's terms include the
stand-ins of its symbols (memory/search/lexical.py). Stored texts are unchanged.

A mark of no width within a word (memory/text/padding.py: "867\u20605309") splits it
for the tokenizer, yet shows nothing: the word as it looks ("8675309") is added after
the text, so exact matching, which reads texts without such marks
(memory/ops/forget_select.py), finds the text by the words it looks up.
"""

from __future__ import annotations

import re
import unicodedata

from tiermem.memory.text.padding import NO_WIDTH, unmarked

#: A mark of no width between two characters of a word (a piece without whitespace).
_WITHIN = re.compile(f"[^{NO_WIDTH}][{NO_WIDTH}]+[^{NO_WIDTH}]")
_ANY_MARK = re.compile(f"[{NO_WIDTH}]")

#: The name under which SQL calls ``indexed_text``.
SQL_FUNCTION = "tiermem_fts_text"


def symbol_words(text: str) -> list[str]:
    """The stand-in word of each symbol in ``text``, in order (repeats kept)."""
    if text.isascii():  # most text: no symbol to look for, at C speed
        return []
    return [f"sym{ord(c):x}x" for c in text if unicodedata.category(c) == "So"]


def indexed_text(text: str | None) -> str | None:
    """What the full-text index reads for ``text``: each symbol replaced by its stand-in."""
    if text is None or text.isascii():
        return text
    indexed = "".join(f" sym{ord(c):x}x " if unicodedata.category(c) == "So" else c
                      for c in text)
    if _ANY_MARK.search(indexed) is None:
        return indexed
    joined = [unmarked(piece) for piece in indexed.split() if _WITHIN.search(piece)]
    return " ".join([indexed, *joined]) if joined else indexed
