"""The "next:" line after a page of /recall or /archival matches runs the same search."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.test_repl import command_output, make_repl
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        for i in range(25):
            m.archival_insert(f"runbook {i}: grep --all the logs")
            m.recall.append("user", f"note {i}: tea --all grep", turn=i)
            m.recall.append("tool", f"tool row {i}: tea", turn=i)
        yield m


@pytest.mark.parametrize("line", ["/recall -- tea --all", "/recall -- --all grep",
                                  "/archival -- grep --page 2"])
def test_the_next_page_of_a_query_after_a_separator_searches_for_the_same_words(
        memory: HierarchicalMemory, line: str) -> None:
    repl, out = make_repl(memory)
    first = command_output(repl, out, line)
    assert first[0] == "25 matches (page 1 of 3)"
    # The query is given after "--" again: without it, its "--all" was read as the option,
    # and page 2 was of a search for "tea" among every row (75 matches, of 8 pages).
    name, _, query = line.partition(" -- ")
    assert first[-1] == f"next: {name} --page 2 -- {query}"
    second = command_output(repl, out, first[-1].removeprefix("next: "))
    assert second[0] == "25 matches (page 2 of 3)"
    assert {row.split()[0] for row in first[1:-1]}.isdisjoint(
        row.split()[0] for row in second[1:-1])
