"""The Porter stemmer of SQLite's full-text index, one word at a time.

Scoring answers the way the index reads words (evals/qa.py) needs the very
stemmer FTS5's ``porter`` tokenizer applies; SQLite ships it, so no
dependency is added.
"""

from __future__ import annotations

import sqlite3


class PorterStemmer:
    """SQLite FTS5's Porter stemmer, one word at a time."""

    def __init__(self) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE words USING fts5(w, tokenize='porter ascii')")
        self.conn.execute("CREATE VIRTUAL TABLE stems USING fts5vocab(words, 'instance')")
        self.cache: dict[str, str] = {}

    def stem(self, word: str) -> str:
        if word not in self.cache:
            self.conn.execute("DELETE FROM words")
            self.conn.execute("INSERT INTO words (w) VALUES (?)", (word,))
            terms = [r[0] for r in self.conn.execute("SELECT term FROM stems ORDER BY offset")]
            self.cache[word] = "".join(terms) or word
        return self.cache[word]
