"""What a memory does as a whole: copy itself to a snapshot, be rebuilt from one, and be
re-embedded in place. ``HierarchicalMemory`` has these methods from ``SnapshotsAndReindex``.

Each method names what it uses of the memory with a Protocol (memory/ops/snapshot.py,
memory/ops/reindex.py), so this module never imports the memory it serves; ``restore`` and
``reindex`` return an instance of the class they are called on.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.ops.reindex import MemoryOpener
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.guard import guarded
from tiermem.memory.validation import check_flag

if TYPE_CHECKING:
    from tiermem.memory.ops.snapshot import ReadSnapshot, SnapshottedMemory

M = TypeVar("M")


class SnapshotsAndReindex:
    """Snapshots of a memory, and the memories ``restore`` and ``reindex`` open."""

    @guarded
    def snapshot(self: SnapshottedMemory, include_vectors: bool = True) -> dict[str, Any]:
        """Everything in this memory as JSON-serialisable data, with the settings it stores
        (not this session's own: ``store_settings=False``, a reader's)."""
        from tiermem.memory.ops.snapshot import take_snapshot

        return take_snapshot(self, include_vectors=check_flag(include_vectors,
                                                               "include_vectors"))

    @guarded
    def write_snapshot(self: SnapshottedMemory, file: str | Path, include_vectors: bool = True,
                       progress: Callable[[str, int, int], None] | None = None) -> None:
        """``snapshot()`` written to ``file`` as JSON, the bytes ``json.dumps`` gives, a row at
        a time: a memory of any size is written in bounded memory. The file is replaced
        whole or not at all (tiermem.OutputPathError if it cannot be);
        ``progress("snapshot", done, total)`` is called every thousand rows and at the end."""
        from tiermem.memory.ops.snapshot import snapshot_text
        from tiermem.memory.output_file import write_atomic_pieces
        from tiermem.user_paths import expanded

        if not isinstance(file, str | os.PathLike):
            raise InvalidInputError(f"file must be the snapshot file's path (str or Path), got "
                                    f"{type(file).__name__}")
        write_atomic_pieces(expanded(file), snapshot_text(
            self, check_flag(include_vectors, "include_vectors"), progress), private=True)

    @classmethod
    def restore(
        cls: MemoryOpener[M], snapshot: dict[str, Any] | os.PathLike[str] | ReadSnapshot,
        path: str | Path | None = None, embedder: Embedder | None = None, *, replace: bool = False,
        store: StorageBackend | str | None = None, agent: str | None = None,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> M:
        """A memory rebuilt exactly from ``snapshot()`` output, at ``path``.

        ``snapshot`` is the dict, or the path (a ``pathlib.Path``) of the file
        ``write_snapshot`` or ``json.dump`` wrote: a file is read a row at a time, checked
        whole first and then read again as its rows are written, so a memory of any size
        is restored in bounded memory (one whose ``"tables"`` is not its last member, or
        that gives a key twice, is read whole). ``progress(step, done, total)`` is called
        as it goes: ``"reading"`` (bytes of a file checked), ``"restoring"`` (rows
        written), ``"embedding"`` (rows restored without a vector, embedded), then once
        ``"committed"`` (the restored memory is in place; what is left is opening it).

        The snapshot is validated first; anything wrong with it (a file cut short or not
        JSON included) raises SnapshotError and writes nothing; a file that cannot be read
        raises OSError. A time that is no date in the years 1 to 9999 as
        Unix seconds is read as milliseconds, as older versions stored some (its value
        divided by 1000 must then be such a date); so is a fact's last access and creation
        on a memory whose clock is "wall", and a superseded passage's time (counts of
        interactions must be finite and not negative). A directory that already holds a
        memory is refused unless ``replace``; then the old memory stays
        whole until the new one is complete, and a failed or killed restore
        leaves it as it was (memory/store/sqlite/restore.py). With ``store`` (an open
        backend, or a PostgreSQL DSN with ``agent``) instead of ``path``, the rows are
        written in one transaction of it.
        """
        from tiermem.memory.ops.snapshot import restore_snapshot

        return restore_snapshot(cls, snapshot, path, embedder,
                                check_flag(replace, "replace"), store, agent, progress)

    @classmethod
    def reindex(
        cls: MemoryOpener[M], path: str | Path | None = None, embedder: Embedder | None = None, *,
        store: str | None = None, agent: str | None = None,
        progress: Callable[[str, int, int], None] | None = None, **options: Any
    ) -> M:
        """Re-embed every passage and message of the memory at ``path`` (or of agent
        ``agent`` in the PostgreSQL database ``store``) with ``embedder``.

        Texts are untouched; only the derived vectors change. If the process
        stops half-way, the memory refuses to open until reindex is run again,
        which continues where it stopped (memory/ops/reindex.py). ``progress``, if
        given, is called after each batch with the table ("passages" or "messages"),
        its rows done so far and its rows in all.
        """
        from tiermem.memory.ops.reindex import reindex_memory

        return reindex_memory(cls, path, embedder, store, agent, options, progress)
