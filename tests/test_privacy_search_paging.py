"""Paging through a screened conversation search shows each shown match once, in one order,
however many withheld matches widen recall's window of newest matches."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory
from test_privacy_search_totals import by_dose, policy

from tiermem.memory.judge import FunctionJudge
from tiermem.memory.privacy import guard as guard_module
from tiermem.memory.tiers.recall import NewMessage
from tiermem.memory.types import Hit
from tiermem.tools.memory_tools import ToolContext, memory_toolbox

T0 = 1_700_000_000.0
MESSAGES = 80
DOSE = re.compile(r"\d+ mg")


def conversation(home: Path) -> set[int]:
    """80 messages naming propranolol, two of every three with a dose; their words differ,
    so that a wider window ranks them in another order. The ids of the shown ones."""
    with make_memory(home) as memory:
        memory.recall.append_many([
            NewMessage("user", f"took propranolol {10 + i} mg" if i % 3 else
                       f"asked about propranolol {'again ' * (i % 4)}note {i}",
                       turn=i, created_at=T0 + 60 * i)
            for i in range(MESSAGES)])
        return {m.id for m in memory.store.messages.get_many(
            list(range(1, MESSAGES + 1))).values() if not DOSE.search(m.content)}


def paged(memory: Any, k: int = 5) -> list[list[int]]:
    """The ids of recall_search's pages, up to the first empty one."""
    pages: list[list[int]] = []
    while not pages or pages[-1]:
        found = memory.recall_search("propranolol", k=k, page=len(pages) + 1)
        pages.append([h.id for h in found.hits])
    return pages[:-1]


@pytest.mark.parametrize("mode", ["deterministic", "llm"])
def test_paging_shows_each_shown_match_once(tmp_path: Path, mode: str) -> None:
    # A window of 35 newest matches holds 12 shown ones: pages past them widen it.
    shown = conversation(tmp_path / "a")
    judge = FunctionJudge(by_dose) if mode == "llm" else None
    with make_memory(tmp_path / "a", privacy=policy(mode), judge=judge) as memory:
        memory.recall.window = 35
        pages = paged(memory)
        every = [i for page in pages for i in page]
        assert len(every) == len(set(every))
        one_page = [h.id for h in memory.recall_search("propranolol", k=200).hits]
    assert set(every) == set(one_page) == shown
    assert [len(page) for page in pages] == [5] * 5 + [2]


def test_the_tool_pages_through_each_shown_message_once(tmp_path: Path) -> None:
    shown = conversation(tmp_path / "a")
    with make_memory(tmp_path / "a", privacy=policy("deterministic")) as memory:
        memory.recall.window = 35
        ctx = ToolContext(memory=memory, turn=999)
        ids: list[int] = []
        for page in range(1, 7):
            answer = json.loads(memory_toolbox().dispatch(
                "conversation_search", json.dumps({"query": "propranolol", "page": page}),
                call_id="c", context=ctx).content)
            ids += [r["id"] for r in answer["results"]]
    assert sorted(ids) == sorted(shown)


def test_a_judged_page_asks_about_each_match_once(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    conversation(tmp_path / "a")
    asked: list[list[int]] = []
    screen = guard_module.filtered_page

    def counting(fetch: Any, allow: Any, *args: Any, **kwargs: Any) -> Any:
        ids: list[int] = []
        asked.append(ids)

        def counted(hits: Sequence[Hit]) -> list[bool]:
            ids.extend(h.id for h in hits)
            return allow(hits)

        return screen(fetch, counted, *args, **kwargs)

    monkeypatch.setattr(guard_module, "filtered_page", counting)
    with make_memory(tmp_path / "a", privacy=policy("llm"),
                     judge=FunctionJudge(by_dose)) as memory:
        memory.recall.window = 35
        paged(memory)
    # Each page checks only as far as it reads, each message once: the first page two
    # over-fetches of 15 (the first held 5 shown ones), the deepest every match (the
    # window widened to hold all 80).
    assert all(len(ids) == len(set(ids)) for ids in asked)
    assert len(asked[0]) == 30
    assert max(len(ids) for ids in asked) == MESSAGES


def older_shown_newer_withheld(home: Path, shown: int, withheld: int) -> None:
    """``shown`` messages naming propranolol, then ``withheld`` newer ones with a dose."""
    with make_memory(home) as memory:
        memory.recall.append_many([
            NewMessage("user", f"asked about propranolol note {i}", turn=i, created_at=T0 + i)
            for i in range(shown)])
        memory.recall.append_many([
            NewMessage("user", f"took propranolol {10 + i} mg", turn=shown + i,
                       created_at=T0 + shown + i) for i in range(withheld)], embed=False)


@pytest.mark.parametrize("withheld", [0, 30])
def test_no_page_past_a_short_one_shows_a_match(tmp_path: Path, withheld: int) -> None:
    # A window of 5 newest matches widens to 20 at most: 30 newest withheld ones fill it.
    # A deeper page read on past it and showed, on its own slice, matches that the pages
    # before it, short or empty, had never shown.
    older_shown_newer_withheld(tmp_path / "a", 60, withheld)
    with make_memory(tmp_path / "a", privacy=policy("deterministic")) as memory:
        memory.recall.window = 5
        pages = [memory.recall_search("propranolol", k=5, page=page) for page in range(1, 20)]
    sizes = [len(found.hits) for found in pages]
    short = sizes.index(min(sizes))
    assert sizes[short:] == [sizes[short]] + [0] * (len(sizes) - short - 1)
    assert all(found.total <= 5 * short + sizes[short] for found in pages)
    every = [h.id for found in pages for h in found.hits]
    assert len(every) == len(set(every))
    assert len(every) == (60 if not withheld else 0)
