"""What ``HierarchicalMemory`` keeps for the layers above and the logs they read: the
state values they store (``get_state``, ``set_state``), the fact events after a point
(``last_event_id``, ``events_since``) and the audit of forget requests
(``forget_requests``). The facade binds these as its methods.

They read the memory through ``StateMemory``, the part of it they use, so this module
does not import the facade that imports it."""

from __future__ import annotations

import json
from typing import Any, Protocol

from tiermem.memory.ops.protocols import StoredMemory
from tiermem.memory.store.records import ForgetRequest
from tiermem.memory.tiers.core import CoreTier
from tiermem.memory.tiers.journal import Journal
from tiermem.memory.validation import (
    MAX_ID,
    MAX_STATE_KEY_CHARS,
    check_count,
    check_id,
    check_state_key,
    state_json,
)


class StateMemory(StoredMemory, Protocol):
    """What the state values and the logs use of a memory (``HierarchicalMemory``)."""

    @property
    def core(self) -> CoreTier:
        ...

    @property
    def journal(self) -> Journal:
        ...


def get_state(memory: StateMemory, key: str, default: Any = None) -> Any:
    """A JSON value that a caller (e.g. an agent runtime) stored with ``set_state``."""
    # No length limit here: a longer key that an earlier version stored is still read.
    raw = memory.store.settings.get(f"state.{check_state_key(key)}")
    return default if raw is None else json.loads(raw)


def set_state(memory: StateMemory, key: str, value: Any) -> None:
    """Store a JSON value in the current transaction (or its own); its JSON text may hold
    up to ``MAX_STATE_VALUE_CHARS`` (memory/validation.py), which a snapshot restores."""
    key, text = check_state_key(key, MAX_STATE_KEY_CHARS), state_json(value)
    with memory.store.transaction():
        memory.store.settings.set(f"state.{key}", text)


def last_event_id(memory: StateMemory) -> int:
    return memory.store.history.last_event_id()


def events_since(memory: StateMemory, event_id: int) -> list[dict[str, Any]]:
    """Fact events (add, evict, promote, bypass, replace, ...) after ``event_id``.

    Events store no text; ``text`` is the fact's text as it is now ("" for a fact
    erased since), so an edit or an erasure leaves no old copy to read here.
    """
    return memory.journal.events_since(check_id(event_id, "event_id", "an event id"),
                                       memory.core.load)


def forget_requests(memory: StateMemory, newest: int | None = None) -> list[ForgetRequest]:
    """The audit of forget requests, oldest first (or the ``newest``, newest first)."""
    if newest is not None:
        newest = min(check_count(newest, "newest"), MAX_ID)
    return memory.store.forgetting.requests(newest)
