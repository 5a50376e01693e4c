"""Ctrl-C inside a SQL function SQLite calls ends the program, not one statement."""

from __future__ import annotations

from collections.abc import Callable
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


def test_a_signal_s_exit_inside_the_full_text_function_ends_the_program_as_itself(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A chat turns SIGTERM into SystemExit(143) (agent/interrupts.py); raised while SQLite
    # runs the trigger, it must not come back as Ctrl-C or a failed statement.
    def terminated_on_boom(text: str) -> str:
        if "boom" in text:
            raise SystemExit(143)
        return indexed_text(text)

    monkeypatch.setattr(schema, "indexed_text", terminated_on_boom)
    with HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder()) as memory:
        with pytest.raises(SystemExit) as ended:
            memory.archival_insert("boom goes the dynamite")
        assert ended.value.code == 143
        memory.archival_insert("the standup is at ten")  # the next statement is its own
        assert memory.archival_search("standup", k=5).total == 1


def _source(home: Path) -> dict[str, object]:
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.archival_insert("the deploy runs every friday")
        memory.archival_insert("boom goes the dynamite")
        snapshot: dict[str, object] = memory.snapshot()
        return snapshot


def test_an_interrupt_before_the_function_s_own_code_is_ctrl_c_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Python runs the SIGINT handler at the first instruction of the function SQLite calls,
    # which may come before the code that would note the interrupt.
    snapshot = _source(tmp_path / "source")

    def unnoted(function: Callable[[str], str]) -> Callable[[str], str]:
        def call(text: str) -> str:
            if "boom" in text:
                raise KeyboardInterrupt
            return function(text)
        return call

    monkeypatch.setattr(schema, "interruptible", unnoted)
    with pytest.raises(KeyboardInterrupt):  # not SQLite's "user-defined function raised"
        HierarchicalMemory.restore(snapshot, path=tmp_path / "home", embedder=HashingEmbedder())
    assert not (tmp_path / "home" / "memory.sqlite3").exists()
    with HierarchicalMemory(tmp_path / "other", embedder=HashingEmbedder()) as memory:
        with pytest.raises(KeyboardInterrupt):
            memory.archival_insert("boom again")
        memory.archival_insert("the standup is at ten")
        assert [h.text for h in memory.archival_search("standup", k=5).hits] == [
            "the standup is at ten"]


def test_a_failure_of_the_function_is_logged_and_the_text_indexed_as_given(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    def broken(text: str) -> str:
        raise ValueError("cannot read a symbol")

    monkeypatch.setattr(schema, "indexed_text", broken)
    with HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder()) as memory:
        memory.archival_insert("the deploy runs every friday")
        assert [h.text for h in memory.archival_search("friday", k=5).hits] == [
            "the deploy runs every friday"]
    assert "indexed without its symbols' words (ValueError: cannot read a symbol)" in caplog.text
