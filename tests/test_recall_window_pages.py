"""Paging through a conversation search deeper than recall's window of newest matches shows
each match once, in one order, and every page counts the pages as the others do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory
from test_privacy_search_totals import older_shown

from tiermem.memory.privacy import parse_policy
from tiermem.memory.tiers.recall import NewMessage
from tiermem.tools.memory_tools import ToolContext, memory_toolbox

T0 = 1_700_000_000.0
MESSAGES = 30
#: A policy whose recall layer is off: searches read through it unscreened.
UNSCREENED = parse_policy("recall: {enabled: false}\n")


def conversation(home: Path, embed: bool) -> None:
    """30 messages naming propranolol in different words, so that each wider window ranks
    them in another order; without vectors only the words rank them."""
    with make_memory(home) as memory:
        memory.recall.append_many([
            NewMessage("user", f"took propranolol {'again ' * (i % 4)}note {i}", turn=i,
                       created_at=T0 + 60 * i) for i in range(MESSAGES)], embed=embed)


@pytest.mark.parametrize("privacy", [None, UNSCREENED], ids=["no policy", "recall layer off"])
@pytest.mark.parametrize("embed", [True, False], ids=["vectors", "words only"])
def test_pages_past_the_window_show_each_match_once(tmp_path: Path, embed: bool,
                                                    privacy: Any) -> None:
    conversation(tmp_path / "a", embed)
    with make_memory(tmp_path / "a", privacy=privacy) as memory:
        memory.recall.window = 5
        pages = [[h.id for h in memory.recall_search("propranolol", k=5, page=page).hits]
                 for page in range(1, 9)]
        whole = [h.id for h in memory.recall_search("propranolol", k=MESSAGES).hits]
    every = [i for ids in pages for i in ids]
    # Each deeper page ranked a wider window afresh: pages 1 to 3 repeated the newest.
    assert len(every) == len(set(every)) == MESSAGES
    assert every == whole
    assert sorted(whole) == list(range(1, MESSAGES + 1))


def test_a_page_past_the_last_names_the_last_page_with_results(tmp_path: Path) -> None:
    # 301 matches, a window of 5: page 61 holds the last one, and page 62, past the last
    # stored message, counted only its own window and said the last page was 2.
    home = older_shown(tmp_path / "a", 300)
    with make_memory(home) as memory:
        memory.recall.window = 5
        ctx = ToolContext(memory=memory, turn=999)
        out = {page: memory_toolbox().dispatch(
            "conversation_search", json.dumps({"query": "propranolol", "page": page}),
            call_id="c", context=ctx).content for page in (1, 60, 61, 62, 70)}
    last = json.loads(out[61])
    assert (last["page"], last["total"], len(last["results"])) == ("61 of 61", 301, 1)
    assert json.loads(out[60])["page"] == "60 of 61"
    assert out[62] == "Error: page 62 is past the last page (61); ask page 1"
    assert out[70] == "Error: page 70 is past the last page (61); ask page 1"


def test_a_deep_page_ranks_windows_doubling_from_the_tier_s_own(tmp_path: Path) -> None:
    conversation(tmp_path / "a", embed=False)
    with make_memory(tmp_path / "a") as memory:
        memory.recall.window = 5
        lexical = memory.store.lexical("messages")
        rank = lexical.rank
        windows: list[int | None] = []

        def counting(terms: Any, filt: Any, window: int | None = None) -> Any:
            windows.append(window)
            return rank(terms, filt, window)

        lexical.rank = counting  # type: ignore[method-assign]
        memory.store.lexical = lambda table: lexical  # type: ignore[method-assign]
        memory.recall_search("propranolol", k=5, page=1)
        within = list(windows)
        windows.clear()
        memory.recall_search("propranolol", k=5, page=4)
    assert within == [5]
    # Page 4 (20 deep) ranks windows of 5, 10 and 20: 35 rows, under four times its depth.
    assert windows == [5, 10, 20]
