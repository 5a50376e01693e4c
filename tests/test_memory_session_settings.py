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


def test_a_snapshot_holds_the_stored_settings_not_a_sessions_own(tmp_path: Path) -> None:
    """A session's own settings (``store_settings=False``, a reader's) are not the memory's:
    a snapshot of it restores the memory with the settings it keeps, as SKILL.md says."""
    with open_memory(tmp_path / "a", core_limit=5, core_limit_unit="facts", tau=7.0):
        pass
    with open_memory(tmp_path / "a", core_limit=9, tau=3.0, store_settings=False) as memory:
        taken = memory.snapshot()
        with open_memory(tmp_path / "a", read_only=True, tau=4.0) as reader:
            assert reader.snapshot()["config"] == taken["config"]
    with HierarchicalMemory.restore(taken, tmp_path / "b", HashingEmbedder()) as restored:
        assert (restored.config.core_limit, restored.config.tau) == (5, 7.0)


def test_opening_writes_only_the_settings_that_changed(tmp_path: Path,
                                                        monkeypatch: Any) -> None:
    # Each open wrote every setting and the embedder's name and size again, whether or not
    # it changed: `tiermem config core_limit 300` rewrote all ten settings.
    from tiermem.memory.config import MemoryConfig
    from tiermem.memory.store.sqlite.history import SQLiteSettings

    with open_memory(tmp_path, policy="lru"):
        pass
    written: list[str] = []
    set_one = SQLiteSettings.set

    def recorded(self: SQLiteSettings, key: str, value: object) -> None:
        written.append(key)
        set_one(self, key, value)

    monkeypatch.setattr(SQLiteSettings, "set", recorded)
    kept = {*MemoryConfig.model_fields, "embedder_id", "embedder_dim"}
    with open_memory(tmp_path, core_limit=300, policy="lru") as memory:
        assert memory.core.limit == 300
    assert [key for key in written if key in kept] == ["core_limit"]
    written.clear()
    with open_memory(tmp_path, store_settings=False, core_limit=5):
        pass
    assert [key for key in written if key in kept] == []
    with open_memory(tmp_path) as memory:
        assert (memory.core.limit, memory.config.policy) == (300, "lru")
