"""Settings given for one session only: applied, reported, and not stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tiermem.memory import HashingEmbedder, HierarchicalMemory


def open_memory(home: Path, **options: Any) -> HierarchicalMemory:
    return HierarchicalMemory(home, embedder=HashingEmbedder(), **options)


def test_a_session_setting_applies_without_replacing_the_stored_one(tmp_path: Path) -> None:
    with open_memory(tmp_path, core_limit=5, core_limit_unit="facts") as memory:
        for name in ("Ada", "Bob", "Cy", "Dee"):
            memory.add_fact(f"User's friend is {name}")
    with open_memory(tmp_path, core_limit=2, store_settings=False) as memory:
        assert memory.core.limit == 2 and len(memory.core) == 2
        assert memory.moved_on_open == 2
        assert memory.stored_config().core_limit == 5
    with open_memory(tmp_path) as memory:
        assert memory.core.limit == 5 and memory.moved_on_open == 0
        assert memory.stored_config() == memory.config


def test_a_new_memory_opened_for_one_session_stores_the_defaults(tmp_path: Path) -> None:
    with open_memory(tmp_path, core_limit=12, store_settings=False) as memory:
        assert memory.core.limit == 12
    with open_memory(tmp_path) as memory:
        assert memory.core.limit == 2000


def test_stored_settings_are_kept_by_default(tmp_path: Path) -> None:
    with open_memory(tmp_path, core_limit=300) as memory:
        assert memory.moved_on_open == 0
    with open_memory(tmp_path) as memory:
        assert memory.core.limit == 300
