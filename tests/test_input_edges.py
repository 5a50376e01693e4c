"""Inputs at the edges: huge page numbers, agent names with a newline, dates without dashes.

Each is tried through the API, and through the memory tools the model calls or the
command line where they take it.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_cli import tiermem

from tiermem.agent.home import agent_home
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.tiers.recall import NewMessage
from tiermem.memory.validation import end_of_day, validate_agent_name
from tiermem.tools.dispatch import ToolResult
from tiermem.tools.memory_tools import PAGE_SIZE, ToolContext, memory_toolbox

HUGE_PAGES = [2**31 - 1, 2**31, 2**63, 2**64, 10**30]
DAY = dt.datetime(2024, 5, 8, tzinfo=dt.UTC).timestamp()


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
        # Messages that all hold the word: the previous message's context adds no match.
        with m.interaction() as tick:
            m.recall.append("user", f"tea message {i}", tick)


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


# -- end dates without a time ------------------------------------------------------------------

BARE_DATES = ["2024-05-08", "20240508", "2024-W19-3", "2024W193", " 20240508 ",
              dt.date(2024, 5, 8)]


@pytest.mark.parametrize("end", BARE_DATES, ids=repr)
def test_a_bare_end_date_includes_its_whole_day(end: Any) -> None:
    last = end_of_day(end, "end")
    assert last is not None and DAY + 86_399.9999 < last < DAY + 86_400
    assert end_of_day("2024-05-08T00:00", "end") == DAY  # a time is taken as given
    assert end_of_day("20240508T1200", "end") == DAY + 43_200


@pytest.mark.parametrize("end", BARE_DATES, ids=repr)
def test_searches_ending_on_a_bare_date_find_that_day(
    memory: HierarchicalMemory, end: Any
) -> None:
    for offset, label in ((-1, "before"), (0.5, "morning"), (43_200, "noon"),
                          (86_399.9995, "last"), (86_400, "after")):
        memory.archival_insert(f"tea {label}", created_at=DAY + offset)
        with memory.interaction() as tick:
            memory.recall.append_many([NewMessage("user", f"tea {label}", tick,
                                                  created_at=DAY + offset)])
    expected = {"tea morning", "tea noon", "tea last"}
    start = "2024-05-08"
    for search in (memory.archival_search, memory.recall_search):
        assert {h.text for h in search("tea", start=start, end=end).hits} == expected
    if isinstance(end, str):  # the tools take dates as text
        for name in ("archival_memory_search", "conversation_search"):
            result = call(memory, name, query="tea", start_date=start, end_date=end)
            assert result.ok, result.content
            assert {r["text"] for r in json.loads(result.content)["results"]} == expected


def test_empty_tags_a_model_sends_are_left_out_not_refused(memory: HierarchicalMemory) -> None:
    # A small model fills an optional list with "" when it means none; the memory itself
    # refuses an empty tag (tests/test_memory_input.py).
    filed = call(memory, "archival_memory_insert", content="the VPN rotates keys on fridays",
                 tags=["", "vpn", " "])
    assert filed.ok and "Filed in archival" in filed.content, filed.content
    assert [h.tags for h in memory.archival_search("VPN keys").hits] == [["vpn"]]
    memory.archival_insert("the VPN has no tags here")
    for tags in ([""], ["vpn", "  "]):
        found = call(memory, "archival_memory_search", query="VPN", tags=tags)
        assert found.ok, found.content
        texts = sorted(r["text"] for r in json.loads(found.content)["results"])
        assert texts == (["the VPN rotates keys on fridays"] if "vpn" in tags else
                         ["the VPN has no tags here", "the VPN rotates keys on fridays"]), texts


def test_an_agent_name_with_a_non_ascii_letter_says_ascii_letters() -> None:
    # "ü" is a letter, so "use letters" read as if it were allowed.
    with pytest.raises(InvalidInputError) as refused:
        validate_agent_name("ünï")
    assert "use 1-64 ASCII letters, digits" in str(refused.value)
