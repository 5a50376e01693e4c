"""Rows appended to a full-text index since its words were read into memory, read alone.

Recall is appended to on every turn, and archival whenever a fact is evicted
or the agent files a passage. Reading a word's rows again after each append
would cost what FTS5's bm25() costs once per query, and more (0.3 s for a
word in most of 1M messages, against 23 ms; at 100k passages the first
archival search after a write took 28 ms against 3 ms). So for a table whose
index is appended to (``AppendSource``), ``TermCache`` keeps what it read and
adds the new rows' words: it runs the rows through the index's own
tokenizer, in a private database, from the SQL that fed the index.

Only appends are taken this way. What else changes the index makes the cache
start over: a message erased or forgotten (which also rewrites the next
message's context), a passage deleted, forgotten or edited. It is told apart
so:

- every row added since has a higher id than any read (SQLite gives a new row
  the next id up; a lower one comes back only after the newest row is
  deleted, and ``AppendSource.marker`` changes with every delete: a message
  is deleted only after its erasure is recorded, which the marker watches,
  and the schema's triggers count every passage deleted, forgotten or
  edited; rows imported with their own ids, in a restore, empty the store's
  caches, and when another process clears or imports recall, which may leave
  as many erasures as before, a count of those in the marker has grown);
- FTS5's averages record, which counts the rows and each column's tokens,
  must equal what was read plus exactly the new rows: a row taken out or
  rewritten anywhere else changes those sums;
- each new row's lengths, as the private tokenizer counts them, must equal
  the index's docsize record of that row, so a row indexed from other text
  is caught (rows are tokenized only when words are held; the lengths come
  from the docsize records).

What earlier common-word tests found (``TermCache.common_from_bounds``) is
carried over appends the same way, topped up with FTS5's count of the new
rows holding the word, up to the highest id taken (a row another process
appended since is counted when it is taken).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

#: The most new rows read this way; past that the words are read again from the index.
MAX_APPENDED = 5_000


@dataclass(frozen=True)
class AppendSource:
    """Where a table's indexed text comes from: ``rows`` selects each indexed row's id and
    column texts, in the index's column order, for ids above its one parameter, in id
    order; ``marker`` answers something that changes whenever a row may have been deleted."""

    rows: str
    columns: int
    marker: str


@dataclass
class Appended:
    """The rows added since: their ids (ascending), lengths, each column's token total,
    and, per word asked for, the ids among them that hold it with its count in each."""

    ids: np.ndarray
    lengths: np.ndarray
    column_totals: list[int]
    postings: dict[str, tuple[np.ndarray, np.ndarray]]


def varints(blob: bytes) -> list[int]:
    """The SQLite varints that make up ``blob`` (FTS5's averages and docsize records)."""
    values, at = [], 0
    while at < len(blob):
        value = 0
        for i in range(9):
            byte = blob[at]
            at += 1
            if i == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        values.append(value)
    return values


class PrivateIndex:
    """Tables of the index's tokenizer in a private in-memory database, one per column count."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock) -> None:
        self.conn, self.lock = conn, lock
        self._made: set[int] = set()

    def index(self, rows: Sequence[tuple[object, ...]], columns: int, tokens: Sequence[str]
              ) -> tuple[dict[int, list[int]], dict[str, list[tuple[int, int]]]]:
        """Each row's column lengths, and per token its (row id, count) pairs, in id order."""
        table = f"rows{columns}"
        names = ", ".join(f"c{i}" for i in range(columns))
        with self.lock, self.conn:
            if columns not in self._made:
                self.conn.execute(f"CREATE VIRTUAL TABLE {table} USING fts5({names},"
                                  " tokenize='porter unicode61')")
                self.conn.execute(f"CREATE VIRTUAL TABLE {table}_instances USING"
                                  f" fts5vocab({table}, 'instance')")
                self._made.add(columns)
            self.conn.execute(f"DELETE FROM {table}")
            self.conn.executemany(f"INSERT INTO {table} (rowid, {names}) VALUES"
                                  f" ({','.join('?' * (columns + 1))})", rows)
            sizes = {int(i): varints(bytes(sz)) for i, sz in self.conn.execute(
                f"SELECT id, sz FROM {table}_docsize")}
            found: dict[str, list[tuple[int, int]]] = {}
            # Each token asked for is one lookup in the private index: past as many tokens as
            # the rows hold in all, reading every token of the rows and keeping those asked
            # for costs less (one row against 5,000 held words: 0.3 ms against 29 ms).
            in_rows = sum(sum(s) for s in sizes.values())
            instances: Iterable[tuple[str, int, int]]
            if len(tokens) <= in_rows:
                instances = self.conn.execute(
                    f"SELECT term, doc, count(*) FROM {table}_instances WHERE term IN"
                    " (SELECT value FROM json_each(?)) GROUP BY term, doc ORDER BY term, doc",
                    (json.dumps(list(tokens)),))
            else:
                wanted = set(tokens)
                instances = (r for r in self.conn.execute(
                    f"SELECT term, doc, count(*) FROM {table}_instances"
                    " GROUP BY term, doc ORDER BY term, doc") if r[0] in wanted)
            for term, doc, count in instances:
                found.setdefault(term, []).append((int(doc), int(count)))
            self.conn.execute(f"DELETE FROM {table}")
        return sizes, found


def read_appended(store: SQLiteStore, table: str, source: AppendSource, after: int,
                  tokens: Sequence[str], private: PrivateIndex) -> Appended | None:
    """The rows of ``table``'s index above id ``after``, with the ``tokens`` they hold;
    None when there are too many, or when one was indexed from other text than
    ``source`` gives now."""
    sizes = [(int(i), varints(bytes(sz))) for i, sz in store.execute(
        f"SELECT id, sz FROM {table}_fts_docsize WHERE id > ? ORDER BY id LIMIT ?",
        (after, MAX_APPENDED + 1))]
    if len(sizes) > MAX_APPENDED or any(len(s) != source.columns for _, s in sizes):
        return None
    ids = np.asarray([i for i, _ in sizes], dtype=np.int64)
    totals = [sum(s[c] for _, s in sizes) for c in range(source.columns)]
    postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if sizes and tokens:
        rows = store.execute(source.rows, (after,)).fetchall()
        if [int(r[0]) for r in rows] != ids.tolist():
            return None
        counted, found = private.index(rows, source.columns, tokens)
        if any(counted.get(i) != s for i, s in sizes):
            return None
        for token, pairs in found.items():
            postings[token] = (np.asarray([d for d, _ in pairs], dtype=np.int64),
                               np.asarray([c for _, c in pairs], dtype=np.float64))
    lengths = np.asarray([sum(s) for _, s in sizes], dtype=np.float64)
    return Appended(ids, lengths, totals, postings)
