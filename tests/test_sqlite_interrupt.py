"""Ctrl-C inside a SQL function SQLite calls ends the program, not one statement."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.store.sqlite import schema
from tiermem.memory.text.symbols import indexed_text


def test_an_interrupt_inside_the_full_text_function_is_raised_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted_on_boom(text: str) -> str:
        if "boom" in text:
            raise KeyboardInterrupt  # as a SIGINT arriving while SQLite runs the trigger
        return indexed_text(text)

    monkeypatch.setattr(schema, "indexed_text", interrupted_on_boom)
    with HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder()) as memory:
        memory.archival_insert("the deploy runs every friday")
        with pytest.raises(KeyboardInterrupt):
            memory.archival_insert("boom goes the dynamite")
        # Only that write is lost, and the next statement's failure is not taken for one.
        memory.archival_insert("the standup is at ten")
        texts = sorted(h.text for h in memory.archival_search("friday standup", k=5).hits)
        assert texts == ["the deploy runs every friday", "the standup is at ten"]
