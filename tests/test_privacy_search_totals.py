"""Under a recall policy, a search's answer tells nothing of the withheld items it matched:
its totals and pages count only matches the policy was seen to show."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory
from rich.console import Console

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import ChatRepl
from tiermem.memory.judge import FunctionJudge
from tiermem.memory.privacy import PrivacyConfig, parse_policy
from tiermem.memory.privacy.recall import MAX_WIDENING
from tiermem.memory.tiers.recall import NewMessage
from tiermem.memory.types import SearchResult
from tiermem.tools.declare import ToolError
from tiermem.tools.memory_tools import ToolContext, memory_toolbox
from tiermem.tools.search_results import page_of

T0 = 1_700_000_000.0
SHOWN = 12


def policy(mode: str) -> PrivacyConfig:
    return parse_policy(f"""
rules:
  - rule_id: dose
    category: medical
    category_description: the user's medication
    regex: '\\b\\d+\\s?mg\\b'
recall: {{mode: {mode}}}
""")


def by_dose(system: str, user: str) -> str:
    """A recall judge withholding every item that names a dose."""
    items = re.findall(r'<item n="(\d+)"[^>]*>(.*?)</item>', user)
    dose = re.compile(r"\d+ mg")
    return "\n".join(f"{n}: {'withhold' if dose.search(text) else 'expose'}"
                     for n, text in items)


def written(home: Path, withheld: int) -> Path:
    """The same shown items at the same ids, then ``withheld`` items that rank before them
    (they say the searched word twice), stored before any policy."""
    with make_memory(home) as memory:
        for i in range(SHOWN):
            memory.archival_insert(f"propranolol note {i} about the clinic", created_at=T0)
        memory.recall.append_many([NewMessage("user", f"asked about propranolol {i}", turn=i,
                                              created_at=T0) for i in range(SHOWN)])
        for i in range(withheld):
            memory.archival_insert(f"propranolol propranolol {20 + i} mg", created_at=T0)
        memory.recall.append_many([NewMessage("user", f"propranolol propranolol {10 + i} mg",
                                              turn=SHOWN + i, created_at=T0)
                                   for i in range(withheld)])
    return home


def answers(home: Path, mode: str) -> list[str]:
    """What the model reads of both search tools, page after page, and the user's views."""
    judge = FunctionJudge(by_dose) if mode != "deterministic" else None
    box = memory_toolbox()
    out = []
    with make_memory(home, privacy=policy(mode), judge=judge) as memory:
        ctx = ToolContext(memory=memory, turn=99)
        for tool in ("archival_memory_search", "conversation_search"):
            for page in (1, 2, 3, 4):
                result = box.dispatch(tool, json.dumps({"query": "propranolol", "page": page}),
                                      call_id="c", context=ctx)
                out.append(result.content)
        for search in (memory.archival_search, memory.recall_search):
            for page in (1, 2):
                found = search("propranolol", k=10, page=page)
                out.append(repr((found.total, found.total_exact, found.pages, found.unchecked,
                                 [h.id for h in found.hits])))
    return out


@pytest.mark.parametrize("mode", ["deterministic", "hybrid", "llm"])
def test_the_answer_with_withheld_matches_is_the_answer_without_them(
        tmp_path: Path, mode: str) -> None:
    none = answers(written(tmp_path / "none", 0), mode)
    many = answers(written(tmp_path / "many", 40), mode)
    assert many == none
    first = json.loads(none[0])
    assert (first["total"], first["page"]) == ("at least 6", "1 of 2")
    assert first["more"] == "matches are counted up to page 2; ask it to see whether more follow"
    last = json.loads(none[2])
    assert (last["total"], last["page"], len(last["results"])) == (SHOWN, "3 of 3", 2)
    assert "past the last page (3)" in none[3]
    assert "mg" not in "".join(many)


def test_a_judged_search_checks_only_as_far_as_the_page_and_one_more(tmp_path: Path) -> None:
    home = tmp_path / "a"
    with make_memory(home) as memory:
        for i in range(200):
            memory.archival_insert(f"propranolol note {i} about the clinic", created_at=T0)
    judge = FunctionJudge(by_dose)
    with make_memory(home, privacy=policy("llm"), judge=judge) as memory:
        found = memory.archival_search("propranolol", k=5)
    judged = sum(len(re.findall(r"<item n=", user)) for _, user in judge.asked)
    assert judged == 15  # one fetch of window_multiplier (3) pages, of 200 matches
    assert (found.total, found.total_exact, found.unchecked) == (6, False, True)


def user_views(home: Path) -> str:
    """What the user's /archival and /recall print, page after page."""
    out = io.StringIO()
    with make_memory(home, privacy=policy("deterministic")) as memory:
        repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                        agent_name="tester", errors=io.StringIO())
        assert repl.run_piped([f"/{view} {page}propranolol\n" for view in ("archival", "recall")
                               for page in ("", "--page 2 ")]) == 0
    return out.getvalue()


def test_the_user_s_views_count_as_the_tools_do(tmp_path: Path) -> None:
    none = user_views(written(tmp_path / "none", 0))
    assert user_views(written(tmp_path / "many", 40)) == none
    assert none.count("at least 11 matches (counted to the next page) (page 1 of 2)") == 2
    assert none.count("\n12 matches (page 2 of 2)") == 2


def older_shown(home: Path, withheld: int) -> Path:
    """One shown message, then ``withheld`` newer ones matching the same word."""
    with make_memory(home) as memory:
        memory.recall.append_many([NewMessage("user", "I asked the pharmacist about propranolol",
                                              turn=0, created_at=T0)])
        memory.recall.append_many([NewMessage("user", f"took propranolol {10 + i} mg", turn=1 + i,
                                              created_at=T0 + 86_400 * (1 + i))
                                   for i in range(withheld)], embed=False)
    return home


def recall_answers(home: Path, window: int, **args: object) -> tuple[list[str], list[int]]:
    """What conversation_search answers for "propranolol" with recall ranking a ``window``
    of newest matches, and how deep each search the policy's screen asked of the tier read."""
    with make_memory(home, privacy=policy("deterministic")) as memory:
        memory.recall.window = window
        depths: list[int] = []
        search = memory.recall.search

        def counting(query: str, k: int = 10, page: int = 1, **kw: Any) -> SearchResult:
            depths.append(max(k * page, kw.get("window") or window))
            return search(query, k=k, page=page, **kw)

        memory.recall.search = counting  # type: ignore[method-assign]
        ctx = ToolContext(memory=memory, turn=999)
        out = [memory_toolbox().dispatch(
            "conversation_search", json.dumps({"query": "propranolol", "page": page, **args}),
            call_id="c", context=ctx).content for page in (1, 2)]
    return out, depths


def test_a_shown_match_older_than_a_window_of_withheld_ones_is_found(tmp_path: Path) -> None:
    # Recall ranks the newest 10 matches; the newer withheld ones fill that window three
    # times over, and the one shown match is older than all of them.
    none, _ = recall_answers(older_shown(tmp_path / "none", 0), 10)
    many, depths = recall_answers(older_shown(tmp_path / "many", 30), 10)
    assert many == none
    found = json.loads(many[0])
    assert (found["total"], [r["id"] for r in found["results"]]) == (1, [1])
    assert max(depths) <= MAX_WIDENING * 10


def test_withheld_matches_widen_the_window_only_so_far(tmp_path: Path) -> None:
    home = older_shown(tmp_path / "a", 300)
    [first, second], depths = recall_answers(home, 5)
    # Past MAX_WIDENING windows of withheld matches the search stops and says how to reach
    # older ones; it ranked no more than that many rows.
    assert max(depths) <= MAX_WIDENING * 5 < 300
    found = json.loads(first)
    assert (found["total"], found["results"]) == ("at least 0", [])
    assert "narrow the dates" in found["ranked"]
    # Not "page 2 of 1" with "at least 0": where the pages end, and how to reach older ones.
    assert second == ("Error: page 2 is past the last page (1), which found no match among "
                      "the newest ranked; older ones may exist: narrow the dates or the words "
                      "to reach them")
    [dated, past], _ = recall_answers(home, 5, end_date="2023-11-14")
    assert [r["id"] for r in json.loads(dated)["results"]] == [1]
    # The dates narrowed, every match is ranked: what an unscreened search says.
    assert past == "Error: page 2 is past the last page (1); ask page 1"


def test_a_page_past_a_window_it_counted_matches_in_says_how_to_reach_older_ones() -> None:
    result = SearchResult(hits=[], total=7, page=3, page_size=5, total_exact=False)
    with pytest.raises(ToolError) as raised:
        page_of(result, "recall", "propranolol")
    assert str(raised.value) == ("page 3 is past the last page (2) of the newest matches "
                                 "ranked; ask page 1, or narrow the dates or the words to "
                                 "reach older ones")
    # Nothing matched at all: no page holds more, and none is past the end of nothing.
    empty = SearchResult(hits=[], total=0, page=3, page_size=5)
    assert page_of(empty, "recall", "propranolol")["results"] == []


def test_the_chat_past_its_newest_ranked_says_how_to_reach_older_ones(tmp_path: Path) -> None:
    home = older_shown(tmp_path / "a", 300)
    out, errors = io.StringIO(), io.StringIO()
    with make_memory(home, privacy=policy("deterministic")) as memory:
        memory.recall.window = 5
        repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                        agent_name="tester", errors=errors)
        assert repl.run_piped(["/recall propranolol\n", "/recall --page 2 propranolol\n",
                               "/recall pharmacist\n"]) == 1
    # Not "at least 0 matches (the newest ranked) fill 1 page": what to do instead.
    assert " ".join(errors.getvalue().split()) == (
        "no match among the newest ranked: there is no page 2; older matches may exist: "
        "search rarer words to reach them")
    shown = out.getvalue().splitlines()
    assert shown[:2] == ["at least 0 matches (the newest ranked) (page 1 of 1)",
                         "older matches may exist: search rarer words to reach them"]
    # As it says: a rarer word reaches the older message.
    assert shown[2:] == ["1 match (page 1 of 1)",
                         "  #1 user: I asked the pharmacist about propranolol"]
