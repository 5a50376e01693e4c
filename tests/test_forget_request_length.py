"""A forget request longer than any stored text: refused with advice that can work.

Exact matching compares whole texts, so neither the request nor pieces of it can match
anything; the error says to give one item's text (or, from Python, to erase by id).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from memory_helpers import make_memory

from tiermem.cli import run
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.validation import MAX_TEXT_CHARS

TOO_LONG = "w " * (MAX_TEXT_CHARS // 2) + "w"


def test_the_library_refuses_it_naming_the_longest_stored_text_and_no_pieces() -> None:
    with make_memory() as m:
        m.add_fact("User lives in Lisbon")
        with pytest.raises(InvalidInputError) as raised:
            m.forget(TOO_LONG)
        assert m.forget_requests() == []
        assert [f.text for f in m.facts()] == ["User lives in Lisbon"]
    said = str(raised.value)
    assert "the longest a stored text can be, so no stored text equals it" in said
    assert "HierarchicalMemory.erase" in said and "pieces" not in said


def test_the_command_refuses_it_as_usage_saying_to_give_one_item_s_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    with HierarchicalMemory(tmp_path / "agents" / "ada", embedder=HashingEmbedder()) as m:
        m.add_fact("User lives in Lisbon")
    assert run(["forget", "--agent", "ada", TOO_LONG]) == 2
    assert capsys.readouterr().err == (
        f"tiermem: forget request is {MAX_TEXT_CHARS + 1:,} characters, over the limit of "
        f"{MAX_TEXT_CHARS:,}, the longest a stored text can be, so no stored text equals it; "
        "give the exact text of one item (TEXT is what to forget; - reads it from standard "
        "input)\n")
