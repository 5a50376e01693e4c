"""The reply to a question that matches ranks beside it (memory/search/replies.py)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory

from tiermem.memory import HierarchicalMemory
from tiermem.memory.search.fusion_scores import Ranked
from tiermem.memory.search.replies import QUESTIONS_READ, REPLY_SHARE, lift_replies

SEARCH = "what inspired the painting for the art show"
QUESTION = "Melanie: Wow, what inspired the painting for the art show?"
# Shares no word with the search: only its place after the question tells what it answers.
ANSWER = "Caroline: A visit to the LGBTQ center last spring, everyone together."
FILLER = [f"Caroline: The art show number {n} had a painting of a lake." for n in range(30)]


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    if request.param == "sqlite":
        return {"path": tmp_path / "home"}
    return {"store": request.getfixturevalue("postgres_dsn"), "agent": "replies"}


def _conversation(memory: HierarchicalMemory,
                  between: Sequence[tuple[str, str]] = ()) -> dict[str, int]:
    """Filler, then the question (user) and its answer (assistant); the ids by name."""
    ids: dict[str, int] = {}
    with memory.interaction() as turn:
        for text in FILLER:
            memory.recall.append("user", text, turn)
        ids["question"] = memory.recall.append("user", QUESTION, turn)
        for role, text in between:
            memory.recall.append(role, text, turn, **({"tool_name": "lookup"}
                                                      if role == "tool" else {}))
        ids["answer"] = memory.recall.append("assistant", ANSWER, turn)
        ids["after"] = memory.recall.append("user", "Melanie: Lovely. See you soon!", turn)
    return ids


@pytest.fixture
def memory(where: dict[str, Any]) -> Iterator[HierarchicalMemory]:
    with make_memory(**where) as opened:
        yield opened


def test_lift_replies_adds_a_reply_and_never_lowers_one() -> None:
    ranked = [Ranked(1, 1.0), Ranked(2, 0.9), Ranked(3, 0.2), Ranked(4, 0.1)]
    lifted, added = lift_replies(ranked, lambda ids: {1: 9, 2: 3})
    assert [r.id for r in lifted] == [1, 2, 9, 3, 4] and added == 1
    by_id = {r.id: r.score for r in lifted}
    assert by_id[9] == pytest.approx(REPLY_SHARE) and by_id[3] == pytest.approx(REPLY_SHARE * .9)
    # A reply already above its share keeps its score.
    kept, added = lift_replies([Ranked(1, 1.0), Ranked(2, 0.95)], lambda ids: {1: 2})
    assert [(r.id, r.score) for r in kept] == [(1, 1.0), (2, 0.95)] and added == 0


def test_only_the_first_hits_are_read_for_questions() -> None:
    ranked = [Ranked(i, 1.0 - i / 100) for i in range(10)]
    asked: list[list[int]] = []

    def replies(ids: Any) -> dict[int, int]:
        asked.append(list(ids))
        return {}

    assert lift_replies(ranked, replies) == (ranked, 0)
    assert asked == [list(range(QUESTIONS_READ))]


def test_recall_search_ranks_the_answer_beside_its_question(memory: HierarchicalMemory) -> None:
    ids = _conversation(memory)
    # Alone, the answer matches only through its context (the question before it), weakly.
    plain = {h.id: h.score for h in memory.recall.search(SEARCH, k=40).hits}
    assert plain[ids["answer"]] < REPLY_SHARE * plain[ids["question"]]
    hits = memory.recall_search(SEARCH, k=5).hits
    question = next(h for h in hits if h.id == ids["question"])
    answer = next(h for h in hits if h.id == ids["answer"])
    assert answer.score == pytest.approx(REPLY_SHARE * question.score)
    assert [h.id for h in hits].index(ids["answer"]) == [h.id for h in hits].index(
        ids["question"]) + 1
    # The message after the answer is no reply to a question: nothing lifts it.
    after = [h.score for h in memory.recall_search(SEARCH, k=40).hits if h.id == ids["after"]]
    assert after == ([plain[ids["after"]]] if ids["after"] in plain else [])


def test_a_tool_message_between_question_and_answer_is_skipped(
        memory: HierarchicalMemory) -> None:
    ids = _conversation(memory, between=[("tool", "lookup: 3 rows")])
    hits = {h.id: h.score for h in memory.recall_search(SEARCH, k=5).hits}
    assert hits[ids["answer"]] == pytest.approx(REPLY_SHARE * hits[ids["question"]])


def test_the_search_s_filters_hold_for_the_reply(memory: HierarchicalMemory) -> None:
    ids = _conversation(memory)
    by_role = memory.recall_search(SEARCH, k=5, roles=["user"]).hits
    assert ids["question"] in [h.id for h in by_role]
    assert ids["answer"] not in [h.id for h in by_role]
    before = memory.recall_search(SEARCH, k=5, before_id=ids["answer"]).hits
    assert ids["question"] in [h.id for h in before]
    assert ids["answer"] not in [h.id for h in before]


def test_a_forgotten_reply_stays_forgotten(memory: HierarchicalMemory) -> None:
    ids = _conversation(memory)
    assert memory.forget(ANSWER, mode="exact").outcome == "matched"
    hits = memory.recall_search(SEARCH, k=5).hits
    assert ids["answer"] not in [h.id for h in hits]


def test_pages_cut_one_order_and_give_one_total(memory: HierarchicalMemory) -> None:
    _conversation(memory)
    whole = [h.id for h in memory.recall_search(SEARCH, k=10).hits]
    pages = [memory.recall_search(SEARCH, k=5, page=page) for page in range(1, 9)]
    assert [h.id for page in pages[:2] for h in page.hits] == whole
    assert len({page.total for page in pages}) == 1
    assert sum(len(page.hits) for page in pages) == pages[0].total


def test_archival_lifts_the_passage_filed_from_the_reply(memory: HierarchicalMemory) -> None:
    ids = _conversation(memory)
    for text in FILLER:
        memory.archival_insert(text)
    question = memory.archival_insert(QUESTION, tags=["art", "x"],
                                      source_message_id=ids["question"])
    answer = memory.archival_insert(ANSWER, tags=["art"], source_message_id=ids["answer"])
    loose = memory.archival_insert(ANSWER + " (a copy)")  # filed from no message
    plain = memory.archival.search(SEARCH, k=5)
    assert answer not in [h.id for h in plain.hits]  # it shares no word with the search
    lifted = memory.archival_search(SEARCH, k=5)
    found = [h.id for h in lifted.hits]
    assert question in found and answer in found and loose not in found
    # Counted when the ranking holds every match; a page cut before that cannot tell
    # whether the reply matches further down, and says its total may be short.
    assert lifted.total == plain.total and not lifted.total_exact and plain.total_exact
    whole = memory.archival_search(SEARCH, k=100)
    assert answer in [h.id for h in whole.hits] and whole.total == plain.total + 1
    assert len(whole.hits) == whole.total and whole.total_exact
    # A filter the reply's passage fails keeps it out.
    assert answer in [h.id for h in memory.archival_search(SEARCH, k=5, tags=["art"]).hits]
    tagged = [h.id for h in memory.archival_search(SEARCH, k=5, tags=["x"]).hits]
    assert question in tagged and answer not in tagged


def test_query_ranks_the_answer_among_all_tiers(memory: HierarchicalMemory) -> None:
    ids = _conversation(memory)
    hits = memory.query(SEARCH, k=5, touch=False)
    found = [(h.tier, h.id) for h in hits]
    assert ("recall", ids["question"]) in found and ("recall", ids["answer"]) in found
    question = next(h for h in hits if h.tier == "recall" and h.id == ids["question"])
    answer = next(h for h in hits if h.tier == "recall" and h.id == ids["answer"])
    assert answer.score == pytest.approx(REPLY_SHARE * question.score)


def test_forget_s_candidates_are_not_lifted(memory: HierarchicalMemory) -> None:
    from tiermem.memory.ops.forget_config import ForgetConfig
    from tiermem.memory.ops.forget_select import candidates

    ids = _conversation(memory)
    question = memory.archival_insert(QUESTION, source_message_id=ids["question"])
    answer = memory.archival_insert(ANSWER, source_message_id=ids["answer"])
    assert answer in [h.id for h in memory.archival_search(SEARCH, k=5).hits]
    # Each candidate is something to delete: one that only replies to a match is not one.
    listed = [(h.tier, h.id) for h in candidates(memory, SEARCH, ForgetConfig())]
    assert ("archival", question) in listed and ("archival", answer) not in listed


def test_a_reply_the_privacy_policy_withholds_is_not_lifted(tmp_path: Path) -> None:
    from test_privacy_paths import POLICY

    home = tmp_path / "home"
    secret = "Caroline: My doctor put me on insulin last spring."
    with make_memory(home) as memory:
        with memory.interaction() as turn:
            for text in FILLER:
                memory.recall.append("user", text, turn)
            question = memory.recall.append("user", QUESTION, turn)
            answer = memory.recall.append("assistant", secret, turn)
        assert ("recall", answer) in [(h.tier, h.id) for h in memory.query(SEARCH, k=5)]
        assert answer in [h.id for h in memory.recall_search(SEARCH, k=5).hits]
    with make_memory(home, privacy=POLICY) as memory:
        hits = memory.query(SEARCH, k=5)
        assert ("recall", question) in [(h.tier, h.id) for h in hits]
        assert all("insulin" not in h.text for h in hits)
        assert all("insulin" not in h.text for h in memory.recall_search(SEARCH, k=5).hits)


def test_query_lifts_replies_for_time_questions_and_a_second_round(
        memory: HierarchicalMemory) -> None:
    from tiermem.memory.search.hops import HopSettings

    ids = _conversation(memory)
    for question in (SEARCH + " last week", "when " + SEARCH):
        found = [(h.tier, h.id) for h in memory.query(question, k=5, touch=False)]
        assert ("recall", ids["answer"]) in found, question
    hopped = memory.query(SEARCH, k=5, touch=False, hop=HopSettings())
    assert ("recall", ids["answer"]) in [(h.tier, h.id) for h in hopped]


def test_a_question_the_privacy_policy_withholds_lifts_no_reply(tmp_path: Path) -> None:
    from test_privacy_paths import POLICY

    home = tmp_path / "home"
    secret_question = "Melanie: What inspired the painting for the art show, the insulin?"
    with make_memory(home) as memory:
        with memory.interaction() as turn:
            asked = memory.recall.append("user", secret_question, turn)
            replied = memory.recall.append("assistant", ANSWER, turn)
        for text in FILLER:
            memory.archival_insert(text)
        question = memory.archival_insert(secret_question, source_message_id=asked)
        answer = memory.archival_insert(ANSWER, source_message_id=replied)
        assert answer in [h.id for h in memory.archival_search(SEARCH, k=5).hits]
    with make_memory(home, privacy=POLICY) as memory:
        found = [h.id for h in memory.archival_search(SEARCH, k=5).hits]
        # Shown, the answer would tell that a withheld question matched the search.
        assert question not in found and answer not in found


class RoundsGuard:
    """A privacy policy that withholds the question for the request itself but shows it
    for a second round's words (and shows everything else), noting each request."""

    recall_enabled = True

    def __init__(self, request: str) -> None:
        self.request, self.asked = request, []  # type: list[str]

    def allow_hits(self, request: str, hits: Sequence[Any]) -> list[bool]:
        self.asked.append(request)
        return [request != self.request or h.text != QUESTION for h in hits]

    def filter_hits(self, request: str, hits: Sequence[Any]) -> list[Any]:
        return [h for h, ok in zip(hits, self.allow_hits(request, hits), strict=True) if ok]


def test_a_second_round_lifts_no_reply_to_a_question_withheld_for_the_request(
        memory: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.memory.ops import searches

    ids = _conversation(memory)
    question = memory.recall.get_many([ids["question"]])[ids["question"]]
    assert searches._replies(memory, SEARCH, [question])  # shown: its reply is lifted
    guard = RoundsGuard(SEARCH)
    monkeypatch.setattr(memory, "privacy", guard)
    # query()'s second round: screened for its own words, the question is no question asked.
    assert searches._replies(memory, SEARCH, [question]) == {}
    # A tier's second round: its questions are screened for the round's text and the request.
    shown = searches._shown(memory, SEARCH, SEARCH + " lake")
    assert shown is not None and shown([question]) == []
    assert guard.asked[-2:] == [SEARCH + " lake", SEARCH]
