"""BM25 of frequent words computed in memory, from each word's rows read once per index state.

A query made only of common words has no rare word to bound the rest by
(memory/store/sqlite/lexical_bound.py), so FTS5 would score every row
holding one of them: about 1.4 us a row, 60-300 ms at 100k passages. Reading
a word's rows and counts instead costs about 0.15 us a row (fts5vocab's
``instance`` table, one ``group_concat``), and it is read once: later queries
score it with numpy in well under a millisecond, FTS5's ``bm25()`` bit for bit
(memory/store/sqlite/lexical_scores.py).

What is read stays valid while the index is unchanged. FTS5 rewrites its
structure record (and its averages) on every change it writes, so each use
compares the two records with the ones the words were read under and starts
over when they differ, except for a table whose index is appended to
(recall's and archival's, ``AppendSource``): when only rows were appended,
they are added (memory/store/sqlite/lexical_appends.py). Inside a transaction changes may
still be pending in FTS5's memory, not yet in those records: the cache is
then not used. Otherwise a search reads the records, the words and the
counts beside them in one read transaction (``SQLiteStore.read_snapshot``):
another process sharing the file may commit between two statements, and
each must see the same rows.

Only words the tokenizer keeps as one token are held (a query word it splits
is a phrase, scored by FTS5). The words held are capped at ``MAX_POSTINGS``
rows in all; the least recently used go first.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from tiermem.memory.errors import ReadOnlyError
from tiermem.memory.store.records import RowFilter
from tiermem.memory.store.sqlite.lexical_appends import (
    AppendSource,
    PrivateIndex,
    read_appended,
    varints,
)
from tiermem.memory.store.sqlite.lexical_scores import CachedBM25, phrase_scores, positions

# The scores and their ranking live in memory.store.sqlite.lexical_scores; callers may
# import CachedBM25 and positions from here too.
__all__ = ["MAX_POSTINGS", "SPARE_IDS", "CachedBM25", "TermCache", "integers_of", "positions"]

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore

#: The most (row, word) pairs held for one table: 16 bytes each.
MAX_POSTINGS = 8_000_000
#: How far the largest row id may pass twice the rows before the cache is not used.
SPARE_IDS = 1_000_000
_AVERAGES, _STRUCTURE = 1, 10


class _Tokenizer:
    """The index's tokenizer (``porter unicode61``), word by word, in a private database."""

    def __init__(self) -> None:
        self.conn = sqlite3.connect(":memory:", check_same_thread=False)
        self.conn.execute("CREATE VIRTUAL TABLE words USING fts5(w, tokenize='porter unicode61')")
        self.conn.execute("CREATE VIRTUAL TABLE tokens USING fts5vocab(words, 'instance')")
        self.seen: dict[str, str | None] = {}
        self.lock = threading.Lock()
        #: Rows of several columns, tokenized (memory/store/sqlite/lexical_appends.py).
        self.row_index = PrivateIndex(self.conn, self.lock)

    def token(self, word: str) -> str | None:
        """The one token the index holds for ``word``; None when it splits into several."""
        if word not in self.seen:
            with self.lock, self.conn:
                self.conn.execute("DELETE FROM words")
                self.conn.execute("INSERT INTO words (w) VALUES (?)", (word,))
                tokens = [r[0] for r in self.conn.execute("SELECT term FROM tokens")]
            self.seen[word] = tokens[0] if len(tokens) == 1 else None
        return self.seen[word]


def integers_of(text: str | None) -> np.ndarray:
    """A ``group_concat`` of integers as an array (parsed in C: 15x faster than split)."""
    if not text:
        return np.zeros(0, dtype=np.int64)
    return np.fromstring(text, dtype=np.int64, sep=",")


class TermCache:
    """Each word's rows and counts in one table's FTS5 index, and every row's length."""

    _tokenizer: _Tokenizer | None = None
    #: Whether searches may use the cache at all (False: FTS5 scores every match).
    enabled = True

    def __init__(self, store: SQLiteStore, table: str,
                 appends: AppendSource | None = None) -> None:
        self.store, self.table, self.appends = store, table, appends
        self._state: tuple[bytes, ...] | None = None
        self._totals: list[int] = []
        #: With ``appends``: the highest row id read, and the deletion marker's answer then.
        self._through: int | None = None
        self._marker: tuple[object, ...] | None = None
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        #: The arrays behind a word's postings that appends have grown, with room to spare.
        self._room: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._held = 0
        self._lengths: np.ndarray | None = None
        self.rows, self._tokens_total = 0, 0
        self._vocab: str | None = None
        self._top_id: int | None = None
        #: How many rows hold a word at least and at most, as tested so far, through which
        #: row id (``common_from_bounds``).
        self._bounds: dict[str, tuple[int, int, int | None]] = {}
        #: Rows read from the index into the cache, and appended rows added to it (tests
        #: count them).
        self.rows_read = self.rows_appended = 0

    @classmethod
    def tokenizer(cls) -> _Tokenizer:
        if cls._tokenizer is None:
            cls._tokenizer = _Tokenizer()
        return cls._tokenizer

    def fresh(self) -> bool:
        """Whether the cache may be used now; forgets what it read under another state."""
        if not self.enabled or (self.store.conn.in_transaction
                                and not self.store.reading_snapshot):
            return False
        blocks = tuple(bytes(r[0]) for r in self.store.execute(
            f"SELECT block FROM {self.table}_fts_data WHERE id IN (?, ?) ORDER BY id",
            (_AVERAGES, _STRUCTURE)))
        if blocks != self._state and not self._take_appended(blocks):
            self._state, self._postings, self._held, self._lengths = blocks, {}, 0, None
            self._room = {}
            self._bounds, self._top_id = {}, None
            self._count(blocks)
            if self.appends is not None:
                self._through, self._marker = self._max_id(), self._read_marker()
        return self.rows > 0

    def _count(self, blocks: tuple[bytes, ...]) -> None:
        averages = varints(blocks[0]) if len(blocks) == 2 else []
        self.rows, self._totals = (averages[0], averages[1:]) if averages else (0, [])
        self._tokens_total = sum(self._totals)

    def _read_marker(self) -> tuple[object, ...]:
        assert self.appends is not None
        return tuple(self.store.execute(self.appends.marker).fetchone())

    def _take_appended(self, blocks: tuple[bytes, ...]) -> bool:
        """Whether only rows were appended since the words were read, which are then added
        (memory/store/sqlite/lexical_appends.py); False: start over."""
        if (self.appends is None or self._through is None or len(blocks) != 2
                or (not self._postings and self._lengths is None and not self._bounds)
                or self._read_marker() != self._marker):
            return False
        averages = varints(blocks[0])
        new = read_appended(self.store, self.table, self.appends, self._through,
                            list(self._postings), self.tokenizer().row_index)
        if new is None or averages[0] != self.rows + len(new.ids) or averages[1:] != [
                a + b for a, b in zip(self._totals, new.column_totals, strict=True)]:
            return False
        if len(new.ids):
            top = int(new.ids[-1])
            if top > 2 * averages[0] + SPARE_IDS:
                return False
            for token, (ids, counts) in self._postings.items():
                more = new.postings.get(token)
                if more is not None:
                    # A word read after this state may hold some of the new rows already.
                    keep = more[0] > (ids[-1] if len(ids) else -1)
                    self._postings[token] = self._extended(token, ids, counts,
                                                           more[0][keep], more[1][keep])
                    self._held += int(keep.sum())
            if self._lengths is not None:
                if top >= len(self._lengths):  # grown by an eighth: no copy on every turn
                    grown = np.zeros(max(top + 1, len(self._lengths) * 9 // 8),
                                     dtype=np.float64)
                    grown[:len(self._lengths)] = self._lengths
                    self._lengths = grown
                self._lengths[new.ids] = new.lengths
            if self._top_id is not None:
                self._top_id = max(self._top_id, top)
            self._through = top
        self.rows_appended += len(new.ids)
        self._state = blocks
        self._count(blocks)
        return True

    def _extended(self, token: str, ids: np.ndarray, counts: np.ndarray,
                  more_ids: np.ndarray, more_counts: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
        """A word's postings with rows appended, in arrays grown with an eighth to spare: a
        word in most rows gains rows on nearly every turn, and copying its arrays each
        time cost 4 ms at 1M rows."""
        n, k = len(ids), len(more_ids)
        room = self._room.get(token)
        if room is None or n + k > len(room[0]):
            size = n + k + n // 8 + 16
            room = (np.empty(size, dtype=np.int64), np.empty(size, dtype=np.float64))
            room[0][:n], room[1][:n] = ids, counts
            self._room[token] = room
        room[0][n:n + k], room[1][n:n + k] = more_ids, more_counts
        return room[0][:n + k], room[1][:n + k]

    @property
    def through(self) -> int | None:
        """With ``appends``: the highest row id of the state read (call after ``fresh``);
        a row another process appended since lies past it."""
        return self._through

    def common_from_bounds(self, word: str, half: int,
                           added: Callable[[int, int], int]) -> bool | None:
        """Whether ``word`` is in more than ``half`` rows, from what earlier tests found
        (``note_common``) and, after appends, ``added(after, through)``: how many rows with
        ids in that range hold it (bounded above by the state read, so that a row appended
        since is counted once, at the next ``fresh``). None when they cannot tell (call
        after ``fresh``)."""
        known = self._bounds.get(word)
        if known is None:
            return None
        low, high, through = known
        if through is not None and self._through is not None and self._through != through:
            more = added(through, self._through)
            low, high, through = low + more, high + more, self._through
            self._bounds[word] = (low, high, through)
        return True if low > half else False if high <= half else None

    def note_common(self, word: str, half: int, common: bool) -> None:
        """Record a test of whether ``word`` is in more than ``half`` rows."""
        self._bounds[word] = (half + 1, 2**62, self._through) if common else (
            0, half, self._through)

    def held(self, words: Sequence[str]) -> bool:
        """Whether every one of ``words`` is held (call after ``fresh``)."""
        tokenizer = self.tokenizer()
        return all((tokenizer.token(w) or "\0") in self._postings for w in words)

    def hits(self, word: str) -> int | None:
        """How many rows hold ``word``, if it is held (call after ``fresh``)."""
        token = self.tokenizer().token(word)
        held = self._postings.get(token) if token is not None else None
        return None if held is None else len(held[0])

    def load(self, words: Sequence[str]) -> bool:
        """Read the words not held yet; False when one of them is not a single token."""
        tokens = [self.tokenizer().token(w) for w in words]
        if any(t is None for t in tokens) or not self._compact() or not self._vocabulary():
            return False
        for token in tokens:
            assert token is not None
            if token in self._postings:
                self._postings[token] = self._postings.pop(token)  # most recently used last
            else:
                self._read(token)
        # Past the cap, the least recently used words go, never one this query needs.
        for token in list(self._postings):
            if self._held <= MAX_POSTINGS:
                break
            if token not in tokens:
                self._held -= len(self._postings.pop(token)[0])
                self._room.pop(token, None)
        return True

    def readable(self) -> bool:
        """Whether words can be read into memory at all (not from a read-only store)."""
        return self._vocabulary() if self._vocab is None else self._vocab != ""

    def _vocabulary(self) -> bool:
        """Whether the index's fts5vocab table is open (a temporary one, made again whenever
        the store's connection is new; a read-only store cannot make it, and then reads
        nothing into memory)."""
        if self._vocab != "":
            name = f"{self.table}_fts_instances"
            try:
                self.store.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{name} USING "
                                   f"fts5vocab(main, '{self.table}_fts', 'instance')")
            except ReadOnlyError:
                self._vocab = ""
            else:
                self._vocab = name
        return bool(self._vocab)

    def _read(self, token: str) -> None:
        text = self.store.execute(f"SELECT group_concat(doc) FROM temp.{self._vocab} "
                                  "WHERE term = ?", (token,)).fetchone()[0]
        # One row per occurrence, in row order: runs of one row id give its count.
        docs = integers_of(text)
        starts = np.flatnonzero(np.r_[True, docs[1:] != docs[:-1]]) if len(docs) else docs
        ids = docs[starts]
        counts = np.diff(np.r_[starts, len(docs)]).astype(np.float64)
        self.rows_read += len(docs)
        self._postings[token] = (ids, counts)
        self._room.pop(token, None)
        self._held += len(ids)

    @property
    def lengths_read(self) -> bool:
        """Whether the row lengths have been read under the current state (call after
        ``fresh``): words are then cheap to add."""
        return self._lengths is not None

    def _row_lengths(self) -> np.ndarray:
        """Every row's length in tokens, indexed by row id (docsize: one varint a column)."""
        if self._lengths is None:
            ids, sizes = self.store.execute(
                f"SELECT group_concat(id), group_concat(hex(sz), '') FROM {self.table}_fts_docsize"
                " WHERE length(sz) = 1").fetchone()
            lengths = np.zeros(self._max_id() + 1, dtype=np.float64)
            if ids:
                lengths[integers_of(ids)] = np.frombuffer(
                    bytes.fromhex(sizes), dtype=np.uint8)
            for rowid, blob in self.store.execute(
                    f"SELECT id, sz FROM {self.table}_fts_docsize WHERE length(sz) > 1"):
                lengths[rowid] = sum(varints(bytes(blob)))
            self._lengths = lengths
        return self._lengths

    def _compact(self) -> bool:
        """Whether row ids are dense enough to index arrays by (scores are summed in arrays
        as long as the largest id; ids given on import may be anywhere up to 2**63)."""
        if self._top_id is None:
            self._top_id = self._max_id()
        return self._top_id <= 2 * self.rows + SPARE_IDS

    def _max_id(self) -> int:
        return int(self.store.execute(
            f"SELECT coalesce(max(id), 0) FROM {self.table}_fts_docsize").fetchone()[0])

    def scores(self, words: Sequence[str], filt: RowFilter) -> tuple[np.ndarray, np.ndarray]:
        """Every row holding one of ``words`` (all held) and passing ``filt.below``, in id
        order, with its BM25 for the phrases in that order."""
        lengths = self._row_lengths()
        total = np.zeros(len(lengths), dtype=np.float64)
        matched = np.zeros(len(lengths), dtype=bool)
        for word in words:
            ids, counts = self._postings_of(word)
            total[ids] += self._phrase(len(ids), counts, lengths[ids])
            matched[ids] = True
        if filt.below is not None:
            matched[max(filt.below, 0):] = False
        ids = np.flatnonzero(matched)
        return ids, total[ids]

    def phrase_among(self, word: str, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which of ``rows`` (ascending ids) hold ``word`` (held), as a mask, and its share
        of their BM25."""
        ids, counts = self._postings_of(word)
        at, hit = positions(ids, rows)
        return hit, self._phrase(len(ids), counts[at[hit]], self._row_lengths()[rows[hit]])

    def _postings_of(self, word: str) -> tuple[np.ndarray, np.ndarray]:
        token = self.tokenizer().token(word)
        assert token is not None
        return self._postings[token]

    def _phrase(self, hits: int, counts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """One phrase's share of the BM25 of rows holding it ``counts`` times, of those
        ``lengths``, in this index (``phrase_scores``)."""
        return phrase_scores(self.rows, self._tokens_total, hits, counts, lengths)
