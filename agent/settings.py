"""An agent's stored memory settings: shown, and changed only when the user asks.

A memory keeps its settings (memory/config.py) in its database. ``tiermem
config`` reads them without the writer lock and changes one by opening the
memory with it, so the change is validated, stored and applied in one step:
a smaller ``core_limit`` moves facts to archival at once, and the user is
told how many.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any

from tiermem.agent.place import AgentPlace
from tiermem.memory.config import MemoryConfig
from tiermem.memory.embed.embeddings import Embedder, HashingEmbedder, default_embedder
from tiermem.memory.errors import (
    InvalidConfigError,
    OlderSchemaError,
    StoredConfigError,
    UnfinishedStoreError,
)
from tiermem.memory.search.fusion_weights import FUSION_METHODS
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.sqlite import DB_FILE
from tiermem.memory.store.transfer import check_filled

#: What each setting means, for ``tiermem config`` listings.
SETTING_HELP = {
    "core_limit": "core's capacity, in core_limit_unit",
    "core_limit_unit": "tokens or facts",
    "policy": "the eviction policy",
    "clock": "logical (interactions) or wall (seconds); fixed once a memory exists",
    "tau": "recency decay constant, in clock units",
    "recall_dense": "also embed messages so recall is searched by meaning",
    "fusion": "weights of the lexical and dense ranks in hybrid search",
    "promote_hits": "hits an archived fact needs to return to core",
    "recent_promote_hits": "hits needed soon after an eviction",
    "hysteresis_window": "interactions after an eviction that need the higher bar",
}
_TEXT_SETTINGS = frozenset({"core_limit_unit", "policy", "clock"})


@dataclass(frozen=True)
class SettingChange:
    """One stored setting changed: its values before and after, and what moved."""

    name: str
    old: Any
    new: Any
    moved_to_archival: int

    @property
    def unchanged(self) -> bool:
        """The value asked for is the one stored, and nothing moved."""
        return self.old is not None and self.old == self.new and not self.moved_to_archival

    def describe(self, config: MemoryConfig | None) -> str:
        """``core limit 2000 → 1200 tokens; 3 facts moved to archival`` (``config``: the
        settings after the change; None while another stored one cannot be read)."""
        text = describe_change(self.name, self.old, self.new,
                               "" if config is None else config.core_limit_unit,
                               self.moved_to_archival)
        if self.name == "core_limit_unit" and self.old != self.new and config is not None:
            # The number stays as it was, now counting the other unit: 150 tokens become
            # 150 facts. Said outright, a change the user did not mean shows at once.
            before, _, after = text.partition(";")
            unit = config.core_limit_unit
            text = (f"{before} (core limit now {config.core_limit} "
                    f"{unit.removesuffix('s') if config.core_limit == 1 else unit})"
                    + (f";{after}" if after else ""))
        return text


def describe_change(name: str, old: Any, new: Any, unit: str, moved: int,
                    scope: str = "") -> str:
    """A one-line account of a changed setting, for the user (``scope``: e.g. "for this
    session")."""
    if old is None:
        text = f"{name} (its stored value unreadable) → {_shown(new)}"
    elif old == new:
        text = f"{name} unchanged: {_shown(new)}"
    elif name == "core_limit":
        text = f"core limit {old} → {new} {unit.removesuffix('s') if new == 1 else unit}"
    else:
        text = f"{name} {_shown(old)} → {_shown(new)}"
    text += f" {scope}" if scope else ""
    if moved:
        text += f"; {moved} fact{'s' if moved != 1 else ''} moved to archival"
    return text


def read_settings(place: AgentPlace, writer: bool = False,
                  replacing: dict[str, Any] | None = None) -> MemoryConfig:
    """The settings stored in the agent's memory (read-only, no writer lock taken; with
    ``writer``, a memory an older version wrote is upgraded: see ``stored_embedder``);
    ``replacing``: values read in place of the stored ones, which need not be readable."""
    store = _lookup_store(place, writer)
    try:
        # A store a migrate or restore has not filled holds no settings of its own: its
        # defaults shown as the agent's would be wrong.
        check_filled(store)
        return (MemoryConfig.from_meta(store.settings.get, replacing)
                or MemoryConfig(**replacing or {}))
    finally:
        store.close()


def parse_value(name: str, text: str) -> Any:
    """A setting's value as typed on the command line (JSON for the non-text settings); a
    keyword (a policy, a unit, a clock, true or false, a fusion method) in any case: LRU is
    lru."""
    if name not in MemoryConfig.model_fields:
        raise InvalidConfigError(
            f"unknown setting {name!r}; the settings are {', '.join(MemoryConfig.model_fields)}",
            (name,))
    lowered = text.lower()
    if name in _TEXT_SETTINGS:
        return lowered if _takes(name, lowered) else text  # its error quotes what was typed
    fixed = None
    try:
        value = json.loads(lowered if lowered in ("true", "false", "null") else text)
    except json.JSONDecodeError as exc:
        _refuse_a_method(name, text)
        if (fixed := _keyword_case_fixed(text, exc)) is None:
            _refuse_broken_json(name, text, exc)
            return text  # left to the model, whose error names the field and the value
        value = json.loads(fixed)
    if isinstance(value, str):  # '"rrf"'
        _refuse_a_method(name, value)
    method = value.get("method") if isinstance(value, dict) else None
    if isinstance(method, str) and method.lower() in FUSION_METHODS:
        value = {**value, "method": method.lower()}  # {"method": "RRF"}
    if fixed is not None and value is not None and _takes(name, value):
        raise InvalidConfigError(
            f"invalid memory config: {name}: {text!r} is not JSON, which writes true, false "
            f"and null in lower case; type {fixed!r}", (name,))
    # Not taken as JSON writes it either ('{"depth": None}', "None"): refused as that would
    # be, for what is wrong with the value, not only with its spelling.
    return value


def _refuse_a_method(name: str, text: str) -> None:
    """Refuse a fusion method named alone (``text``) with the object that sets it."""
    method = text.strip().strip("'\"").lower()
    if name == "fusion" and method in FUSION_METHODS:
        raise InvalidConfigError(
            f"invalid memory config: fusion: must be an object of fusion weights (got "
            f"{text!r}); for the method {method}, type '{{\"method\": \"{method}\"}}' (a "
            f"weight it leaves out takes its default)", (name,))


#: A word JSON writes in lower case, in another case or as Python writes it (None).
_KEYWORD = re.compile(r"(true|false|null|none)\b", re.IGNORECASE)


def _keyword_case_fixed(text: str, exc: json.JSONDecodeError) -> str | None:
    """``text`` with its true, false and null written as JSON writes them, when that is its
    only fault (``exc``: the error reading it); else None."""
    fixed = text
    while (word := _KEYWORD.match(fixed, exc.pos)) is not None:
        lower = "null" if word[1].lower() == "none" else word[1].lower()
        if lower == word[1]:  # in its case already: the fault lies elsewhere
            return None
        fixed = fixed[:exc.pos] + lower + fixed[word.end():]
        try:
            json.loads(fixed)
        except json.JSONDecodeError as again:
            exc = again
            continue
        return fixed
    return None


def _refuse_broken_json(name: str, text: str, exc: json.JSONDecodeError) -> None:
    """Refuse an object, a list or a string typed as JSON that JSON cannot read
    (``'{"lexical": 0.7,}'``, ``"{'method': 'rrf'}"``), saying where and what it found."""
    if text.lstrip()[:1] in ('{', '[', '"'):
        raise InvalidConfigError(
            f"invalid memory config: {name}: {text!r} is not JSON: {exc.msg[0].lower()}"
            f"{exc.msg[1:]} at character {exc.pos + 1}", (name,))


def _takes(name: str, value: Any) -> bool:
    try:
        MemoryConfig.parse({name: value})
    except InvalidConfigError:
        return False
    return True


def change_setting(place: AgentPlace, name: str, text: str) -> SettingChange:
    """Validate, store and apply one setting of the agent's memory."""
    value = parse_value(name, text)
    if value is None:
        raise InvalidConfigError(
            f"{name} needs a value, not null; `tiermem config --agent NAME {name}` shows the "
            f"current one", (name,))
    try:
        current: MemoryConfig | None = read_settings(place, writer=True)
    except StoredConfigError as exc:
        # A stored value of this setting that cannot be read (written by hand, as no
        # version writes it) is what the message says to replace: the new one replaces it.
        if name not in exc.settings:
            raise
        current = None
    if current is not None:
        wanted = current.updated(**{name: value})
    else:
        try:
            wanted = read_settings(place, writer=True, replacing={name: value})
        except StoredConfigError:
            # Another stored setting cannot be read either: this one is stored alone, so
            # each can be replaced in turn (the memory opens once none is left).
            return _store_alone(place, name, value)
    with place.open_memory(embedder=stored_embedder(place, writer=True),
                           config=wanted) as memory:
        moved = memory.moved_on_open
    # JSON-ready values (the fusion weights as an object), as `config --json` shows them.
    return SettingChange(name, None if current is None else current.as_json()[name],
                         wanted.as_json()[name], moved)


def _store_alone(place: AgentPlace, name: str, value: Any) -> SettingChange:
    """Store ``value`` in place of the unreadable stored ``name``, validated by itself."""
    alone = MemoryConfig.parse({name: value})
    store = place.open_store(read_only=False)
    try:
        with store.transaction():
            store.settings.set(name, alone.to_meta()[name])
    finally:
        store.close()
    return SettingChange(name, None, alone.as_json()[name], 0)


def session_embedder(place: AgentPlace, chosen: str | None,
                     writer: bool = False) -> Embedder | None:
    """The embedder ``--embedder`` names; without one, the embedder the agent's memory was
    built with (after ``tiermem reindex --embedder hashing`` the agent needs no flag), and
    the default (None) for an agent that has no memory yet. ``writer`` as for
    ``stored_embedder``."""
    if chosen == "hashing":
        return HashingEmbedder()
    if chosen is not None or not _has_memory(place):
        return None
    return stored_embedder(place, writer)


def _has_memory(place: AgentPlace) -> bool:
    if place.dsn is None:
        return (place.home / DB_FILE).is_file()
    try:
        from tiermem.memory.store.postgres.connection import stored_agents
    except ImportError:
        return False  # opening the store then says what to install
    return place.name in (stored_agents(place.dsn) or [])


def stored_embedder(place: AgentPlace, writer: bool = False) -> Embedder:
    """The embedder the agent's memory was built with, so opening it needs no flag.

    ``writer``: the caller opens the memory for writing next, so a memory an older version
    wrote, which a read-only open refuses, is upgraded by opening it for writing now.
    """
    store = _lookup_store(place, writer)
    try:
        stored_id = store.settings.get("embedder_id")
        dim = int(store.settings.get("embedder_dim", "0") or 0)
    finally:
        store.close()
    if stored_id and stored_id.startswith("hashing-") and dim:
        return HashingEmbedder(dim)
    return default_embedder()


def _lookup_store(place: AgentPlace, writer: bool) -> StorageBackend:
    """The agent's store, opened to read a setting: read-only (a writer's open takes the
    lock and writes, and the caller's own open would do it a second time), unless it
    refuses a memory an older version wrote, or one whose creation was cut short, and
    ``writer`` lets the writer's open upgrade or finish it here."""
    try:
        return place.open_store(read_only=True)
    except (OlderSchemaError, UnfinishedStoreError):
        if not writer:
            raise
        return place.open_store(read_only=False)


def settings_rows(config: MemoryConfig) -> list[tuple[str, str, str]]:
    """(setting, value, what it means) per setting; a value off its default is marked."""
    defaults = MemoryConfig(clock=config.clock).as_json()
    rows = []
    for name, value in config.as_json().items():
        changed = "" if value == defaults[name] else f" (default {_shown(defaults[name])})"
        rows.append((name, _shown(value) + changed, SETTING_HELP.get(name, "")))
    return rows


def print_settings(console: Any, agent: str, config: MemoryConfig,
                   only: str | None = None, store_flag: str = "") -> None:
    """The settings as a table (``only``: one of them), with how to change one
    (``store_flag``: the ``--store`` that command needs)."""
    from rich.table import Table

    table = Table(title=f"memory settings of agent {agent}")
    for column in ("setting", "value", "meaning"):
        table.add_column(column)
    for row in settings_rows(config):
        if only in (None, row[0]):
            table.add_row(*row)
    console.print(table)
    console.print(f"change one with `tiermem config{store_flag} --agent {agent} SETTING "
                  f"VALUE`; it holds for every later session", markup=False)


def _shown(value: Any) -> str:
    if isinstance(value, dict | list | bool):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, float):
        return f"{value:g}"
    if hasattr(value, "model_dump"):
        return json.dumps(value.model_dump(), sort_keys=True)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return json.dumps(dataclasses.asdict(value), sort_keys=True)
    return str(value)
