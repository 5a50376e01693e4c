"""A snapshot as its members, read in a stream from a file or walked in a dict.

A snapshot file is read a row at a time, so a memory of any size is checked and
restored in bounded memory (memory/ops/snapshot_schema.py checks it, memory/ops/snapshot.py
restores it). ``JsonStream`` reads JSON text piece by piece: every value it gives is the
one ``json.loads`` gives for that text (each is decoded by the same decoder), and a
syntax error raises ``json.JSONDecodeError`` with its place in the whole file.

``SnapshotFile`` gives the members of the top-level object in order, and the value of
``"tables"`` as ``Table``\\ s whose rows come one by one. It streams a file laid out as
tiermem writes one, where ``"tables"`` is the last member and no key is given twice; for
any other layout (a key given twice, which ``json.loads`` would take the last of, or
members after ``"tables"``) it raises ``NotStreamable`` and the caller reads the file whole
(``json.loads``), as earlier versions read every snapshot. ``DictSource`` walks a snapshot
already in memory the same way.

Every pass over a file hashes its bytes, so a restore that reads it twice (checked first,
then written) can tell that it read the same file both times.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from tiermem.user_paths import expanded

#: Bytes read from a file at a time.
CHUNK = 1 << 20
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
#: The longest run of text json.loads reads as one token besides strings and numbers: an
#: error this close to the end of what is read may be a token cut off there.
_LONGEST_TOKEN = len("-Infinity")


class NotStreamable(Exception):
    """The file is laid out so that only reading it whole gives what ``json.loads`` gives."""


@dataclass
class Table:
    """A member of ``"tables"`` whose value is a list: ``rows`` gives them one at a time."""

    rows: Iterator[Any]


class JsonStream:
    """JSON text read from ``binary`` (UTF-8) a piece at a time."""

    def __init__(self, binary: BinaryIO, on_read: Callable[[int], None] | None = None) -> None:
        self._binary = binary
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self._on_read = on_read
        self.digest = hashlib.sha256()
        self.bytes_read = 0
        self._buf = ""
        self._pos = 0
        self._base = 0  # characters of the file before _buf
        self._lines = 0  # line breaks before _buf
        self._line_start = 0  # where the line of _buf's start begins, in the file
        self._eof = False

    def _fill(self, at_least: int = 0) -> bool:
        """Read more text; False at the end of the file."""
        if self._eof:
            return False
        if self._pos:
            breaks = self._buf.count("\n", 0, self._pos)
            if breaks:
                self._lines += breaks
                self._line_start = self._base + self._buf.rindex("\n", 0, self._pos) + 1
            self._buf = self._buf[self._pos:]
            self._base += self._pos
            self._pos = 0
        data = self._binary.read(max(CHUNK, at_least))
        self.digest.update(data)
        self.bytes_read += len(data)
        if not data:
            self._eof = True
            self._buf += self._utf8.decode(b"", final=True)
        else:
            self._buf += self._utf8.decode(data)
        if data and self._on_read is not None:
            self._on_read(self.bytes_read)
        return True

    def _skip_space(self) -> None:
        while True:
            end = _WHITESPACE.match(self._buf, self._pos)
            self._pos = end.end() if end else self._pos
            if self._pos < len(self._buf) or not self._fill():
                return

    def peek(self) -> str:
        """The next character that is not white space ("" at the end of the file)."""
        self._skip_space()
        return self._buf[self._pos:self._pos + 1]

    def take(self, char: str, message: str) -> None:
        if self.peek() != char:
            raise self.error(message, self._pos)
        self._pos += 1

    def value(self) -> Any:
        """The next value, as ``json.loads`` reads it."""
        self._skip_space()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                # Cut off by the end of what is read so far, or wrong: read more (twice
                # what is held, so a long value is decoded a bounded number of times).
                incomplete = exc.pos >= len(self._buf) - _LONGEST_TOKEN or exc.msg.startswith(
                    "Unterminated string")
                if incomplete and self._fill(2 * (len(self._buf) - self._pos)):
                    continue
                raise self.error(exc.msg, exc.pos) from None
            if end >= len(self._buf) - 2 and self._fill():
                continue  # a number may go on in the text not read yet ("1." "1e+" "12")
            self._pos = end
            return value

    def end(self) -> None:
        """Only white space may follow the document."""
        if self.peek():
            raise self.error("Extra data", self._pos)

    def error(self, message: str, pos: int) -> json.JSONDecodeError:
        """``message`` at ``pos`` of the text held, placed as ``json.loads`` places it."""
        lines = self._lines + self._buf.count("\n", 0, pos)
        last = self._buf.rfind("\n", 0, pos)
        start = self._base + last + 1 if last >= 0 else self._line_start
        where = self._base + pos
        exc = json.JSONDecodeError(message, "", 0)
        exc.args = (f"{message}: line {lines + 1} column {where - start + 1} (char {where})",)
        exc.pos, exc.lineno, exc.colno = where, lines + 1, where - start + 1
        return exc


def _members(stream: JsonStream) -> Iterator[str]:
    """The keys of the object about to be read, each left for its value to be read."""
    stream.take("{", "Expecting value")
    if stream.peek() == "}":
        stream.take("}", "")
        return
    while True:
        if stream.peek() != '"':
            raise stream.error("Expecting property name enclosed in double quotes",
                               stream._pos)
        key = stream.value()
        stream.take(":", "Expecting ':' delimiter")
        yield key
        if stream.peek() == ",":
            stream.take(",", "")
            continue
        stream.take("}", "Expecting ',' delimiter")
        return


def _items(stream: JsonStream) -> Iterator[Any]:
    """The items of the list about to be read, one at a time."""
    stream.take("[", "Expecting value")
    if stream.peek() == "]":
        stream.take("]", "")
        return
    while True:
        yield stream.value()
        if stream.peek() == ",":
            stream.take(",", "")
            continue
        stream.take("]", "Expecting ',' delimiter")
        return


class SnapshotFile:
    """A snapshot file, read in a stream each time its members are walked."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = expanded(path)
        #: The SHA-256 of the bytes the last walk read, once it read them all.
        self.digest: str | None = None
        #: The file's size when the last walk opened it.
        self.size = 0

    def members(self, on_read: Callable[[int, int], None] | None = None
                ) -> Iterator[tuple[str, Any]]:
        """The top-level members in order; the value of ``"tables"``, when it is an object,
        an iterator of its members, each a ``Table`` when its value is a list.

        Each value must be used before the next member is asked for. ``on_read(bytes
        read, size)`` is called as the file is read.
        """
        self.digest = None
        with self.path.open("rb") as binary:
            self.size = size = self.path.stat().st_size
            stream = JsonStream(binary, None if on_read is None else
                                (lambda done: on_read(done, size)))
            if stream.peek() != "{":
                raise NotStreamable  # no snapshot: reading it whole says what it is
            seen: set[str] = set()
            tables_done = False
            for key in _members(stream):
                if key in seen or tables_done:
                    raise NotStreamable
                seen.add(key)
                if key == "tables" and stream.peek() == "{":
                    tables = _tables(stream)
                    yield key, tables
                    for _ in tables:  # what the caller left unread
                        pass
                    tables_done = True
                else:
                    yield key, stream.value()
            stream.end()
            self.digest = stream.digest.hexdigest()


def _tables(stream: JsonStream) -> Iterator[tuple[str, Any]]:
    seen: set[str] = set()
    for key in _members(stream):
        if key in seen:
            raise NotStreamable
        seen.add(key)
        if stream.peek() == "[":
            rows = _items(stream)
            yield key, Table(rows)
            for _ in rows:
                pass
        else:
            yield key, stream.value()


class DictSource:
    """A snapshot already in memory (a dict), walked as ``SnapshotFile`` walks a file:
    ``"tables"`` last."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def members(self, on_read: Callable[[int, int], None] | None = None
                ) -> Iterator[tuple[str, Any]]:
        del on_read  # nothing is read
        for key, value in self.data.items():
            if key != "tables":
                yield key, value
        if "tables" in self.data:
            tables = self.data["tables"]
            yield "tables", (_dict_tables(tables) if isinstance(tables, dict) else tables)


def _dict_tables(tables: dict[Any, Any]) -> Iterator[tuple[Any, Any]]:
    for key, value in tables.items():
        yield key, Table(iter(value)) if isinstance(value, list) else value
