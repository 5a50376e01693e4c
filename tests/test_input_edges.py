"""Inputs at the edges: huge page numbers, agent names with a newline.

Each is tried through the API, and through the memory tools the model calls or the
command line where they take it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_cli import tiermem

from agent.home import agent_home
from memory import HashingEmbedder, HierarchicalMemory
from memory.errors import InvalidInputError
from memory.validation import validate_agent_name
from tools.dispatch import ToolResult
from tools.memory_tools import PAGE_SIZE, ToolContext, memory_toolbox

HUGE_PAGES = [2**31 - 1, 2**31, 2**63, 2**64, 10**30]


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def call(memory: HierarchicalMemory, name: str, **args: Any) -> ToolResult:
    ctx = ToolContext(memory=memory, turn=memory.tick + 1)
    return memory_toolbox().dispatch(name, json.dumps(args), context=ctx)


# -- page numbers ------------------------------------------------------------------------------


def _stock(m: HierarchicalMemory, n: int = 7) -> None:
    for i in range(n):
        m.archival_insert(f"tea note {i}")
        m.process_interaction(f"tea message {i}", "noted")


@pytest.mark.parametrize("page", HUGE_PAGES)
def test_a_huge_page_is_empty_with_the_real_total(memory: HierarchicalMemory, page: int) -> None:
    _stock(memory)
    for search in (memory.archival_search, memory.recall_search):
        first = search("tea", k=5)
        assert first.total == 7 and len(first.hits) == 5
        result = search("tea", k=5, page=page)
        assert (result.hits, result.total, result.page, result.pages) == ([], 7, page, 2)


def test_the_pages_around_the_end(memory: HierarchicalMemory) -> None:
    _stock(memory)
    for search in (memory.archival_search, memory.recall_search):
        pages = [search("tea", k=3, page=p) for p in (1, 2, 3, 4)]
        assert [len(p.hits) for p in pages] == [3, 3, 1, 0]
        assert {p.total for p in pages} == {7}
        assert len({h.id for p in pages for h in p.hits}) == 7
    assert memory.archival_search("nothing here", page=2**40).total == 0


@pytest.mark.parametrize("page", HUGE_PAGES)
def test_a_huge_page_through_the_tools_says_where_the_pages_end(
    memory: HierarchicalMemory, page: int
) -> None:
    _stock(memory, PAGE_SIZE + 2)
    for name in ("archival_memory_search", "conversation_search"):
        result = call(memory, name, query="tea", page=page)
        assert not result.ok and result.error_kind == "tool_error", result.content
        assert result.content == f"Error: page {page} is past the last page (2); ask page 1"
        assert call(memory, name, query="tea", page=2).ok
    empty = call(memory, "archival_memory_search", query="nothing here", page=page)
    assert empty.ok and json.loads(empty.content)["results"] == []


# -- agent names -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["demo\n", "demo\r\n", "\ndemo", "de\nmo", "demo\n\n"])
def test_an_agent_name_with_a_newline_is_refused(name: str) -> None:
    with pytest.raises(InvalidInputError, match="invalid agent name"):
        validate_agent_name(name)
    with pytest.raises(InvalidInputError):
        agent_home(name)


def test_the_longest_agent_name_still_passes() -> None:
    assert validate_agent_name("a" * 64) == "a" * 64
    with pytest.raises(InvalidInputError):
        validate_agent_name("a" * 65)


def test_the_cli_refuses_an_agent_name_with_a_newline(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = tiermem(home, "chat", "--agent", "demo\n", "--embedder", "hashing", stdin="hello\n")
    assert done.returncode != 0
    assert "invalid agent name" in done.stderr and "Traceback" not in done.stderr
    assert not home.exists() or not any(home.rglob("memory.sqlite3"))
