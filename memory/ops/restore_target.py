"""Whether a restore without ``replace`` is refused where it would write, found first.

A snapshot file is read and checked whole before a restore writes anything, which takes
minutes for a large one; a target that already holds a memory is refused all the same.
``restore_refusal`` looks at the target alone, read-only and creating nothing, so a caller
(``tiermem restore``) can refuse before reading the file. The restore itself refuses such
a target again (memory/ops/snapshot.py, memory/store/sqlite/restore.py), with the same
words, whatever happened in between.
"""

from __future__ import annotations

from pathlib import Path

from tiermem.memory.errors import TiermemError
from tiermem.memory.restore_errors import RestoreTargetHoldsMemoryError
from tiermem.memory.store.transfer import held_by
from tiermem.user_paths import expanded


def store_refusal(location: str, held: tuple[str, ...]) -> RestoreTargetHoldsMemoryError:
    """What a restore without ``replace`` into a store that holds ``held`` (``held_by``)
    raises."""
    return RestoreTargetHoldsMemoryError(location, held)


def restore_refusal(path: str | Path | None = None, store: str | None = None,
                    agent: str | None = None) -> RestoreTargetHoldsMemoryError | None:
    """The RestoreTargetHoldsMemoryError a restore without ``replace`` into ``path`` (an
    agent home) or agent ``agent`` of the PostgreSQL database ``store`` would raise because
    a memory is there; None when there is none, or when the target cannot be looked at
    (the restore then says why)."""
    if store is None:
        from tiermem.memory.store.sqlite.restore import home_refusal

        return None if path is None else home_refusal(expanded(path))
    from tiermem.memory.store.opening import open_backend
    from tiermem.memory.store.postgres.connection import stored_agents

    try:
        if agent not in (stored_agents(store) or []):
            return None
        backend = open_backend(store, agent, read_only=True)
    except TiermemError:
        return None
    try:
        held = held_by(backend)
        return store_refusal(backend.location, held) if held else None
    except TiermemError:
        return None
    finally:
        backend.close()
