"""A memory created and never used (opened, then closed with nothing said) holds nothing a
migrate or a restore without ``replace`` would lose: both backends and both copies take it
for no memory. One that holds anything of its own, be it no row (the chat's prompt
history, another stored value, a changed setting), is refused by each alike and left as
it was."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import backend_place, make_memory

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import SnapshotError, TargetHoldsMemoryError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops.restore_target import restore_refusal
from tiermem.memory.store.transfer import migrate, migration_target, open_backend


@pytest.fixture(params=["sqlite", "postgres"])
def place(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    return backend_place(request, tmp_path, "unused")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    home = tmp_path / "source"
    with make_memory(home) as memory:
        memory.add_fact("User's locker code is 4412")
        memory.write_snapshot(tmp_path / "snap.json")
    return home


def _restore(place: dict[str, Any], snapshot: Path) -> None:
    HierarchicalMemory.restore(snapshot, embedder=HashingEmbedder(), **place).close()


def _migrate(place: dict[str, Any], source: Path) -> None:
    location = str(place.get("path") or place["store"])
    with contextlib.closing(open_backend(str(source), None, read_only=True)) as copied, \
            migration_target(location, place.get("agent"), copied) as target:
        migrate(copied, target)


def _copy(way: str, place: dict[str, Any], source: Path) -> None:
    if way == "restore":
        _restore(place, source.parent / "snap.json")
    else:
        _migrate(place, source)


def _held(place: dict[str, Any]) -> tuple[list[str], list[str], int]:
    with make_memory(**place, read_only=True) as memory:
        return ([f.text for f in memory.facts()], memory.prompt_history.lines(),
                memory.config.core_limit)


@pytest.mark.parametrize("way", ["restore", "migrate"])
def test_a_memory_never_used_takes_the_copy(place: dict[str, Any], source: Path,
                                            way: str) -> None:
    make_memory(**place).close()
    assert restore_refusal(place.get("path"), place.get("store"), place.get("agent")) is None
    _copy(way, place, source)
    assert _held(place)[0] == ["User's locker code is 4412"]


def _typed_a_command(place: dict[str, Any]) -> str:
    with make_memory(**place) as memory:
        memory.prompt_history.add("/help")
    return "stored state: prompt_history"


def _changed_a_setting(place: dict[str, Any]) -> str:
    make_memory(**place, core_limit=500).close()  # as `tiermem config ... core_limit 500`
    return "settings: core_limit"


@pytest.mark.parametrize("way", ["restore", "migrate"])
@pytest.mark.parametrize("kept", [_typed_a_command, _changed_a_setting])
def test_a_memory_with_no_rows_but_what_it_kept_is_refused_and_left_as_it_was(
        place: dict[str, Any], source: Path, way: str,
        kept: Callable[[dict[str, Any]], str]) -> None:
    what = kept(place)
    before = _held(place)
    assert before[0] == []
    refused = restore_refusal(place.get("path"), place.get("store"), place.get("agent"))
    assert refused is not None and f"already holds a memory ({what})" in str(refused)
    error = SnapshotError if way == "restore" else TargetHoldsMemoryError
    with pytest.raises(error, match=rf"already holds a memory \({what}\)"):
        _copy(way, place, source)
    assert _held(place) == before
