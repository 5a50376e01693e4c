"""A message withheld by the privacy policy tells nothing through the message after it,
whose full-text context holds its words (memory/ops/context_screen.py)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory

from tiermem.memory.ops.context_screen import shown_with_context
from tiermem.memory.privacy import parse_policy
from tiermem.tools.memory_tools import ToolContext, memory_toolbox

POLICY = parse_policy("""
rules:
  - rule_id: diagnosis
    category: medical
    content_substrings: [insulin]
""")
SECRET = "The clinic put me on insulin for my diabetes"
# Shares no word with the secret: only its context (the secret, just before it) matches.
REPLY = "Noted, I will remember that."
OWN = "Understood: insulin twice a day, noted."


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    if request.param == "sqlite":
        return {"path": tmp_path / "home"}
    return {"store": request.getfixturevalue("postgres_dsn"), "agent": "context"}


def _written_before_the_policy(where: dict[str, Any], reply: str = REPLY,
                               before: Sequence[str] = ()) -> dict[str, int]:
    """Messages ``before``, then the secret and a reply, stored before any policy was set;
    the secret's and the reply's ids by name."""
    with make_memory(**where) as memory, memory.interaction() as turn:
        for text in before:
            memory.recall.append("user", text, turn)
        ids = {"secret": memory.recall.append("user", SECRET, turn),
               "reply": memory.recall.append("assistant", reply, turn)}
        memory.recall.append("user", "What time is it?", turn)
        memory.recall.append("assistant", "It is noon.", turn)
    return ids


def test_without_a_policy_the_reply_is_found_through_its_context(
        where: dict[str, Any]) -> None:
    ids = _written_before_the_policy(where)
    with make_memory(**where) as memory:
        assert [h.id for h in memory.recall_search("diabetes", k=5).hits] == [
            ids["secret"], ids["reply"]]


def test_the_reply_to_a_withheld_message_is_not_found_by_its_words(
        where: dict[str, Any]) -> None:
    ids = _written_before_the_policy(where)
    with make_memory(**where, privacy=POLICY) as memory:
        for words in ("diabetes", "insulin", "clinic diabetes"):
            page = memory.recall_search(words, k=5)
            assert page.hits == [] and page.total == 0, words
        assert memory.query("diabetes clinic", k=5) == []
        out = memory_toolbox().dispatch(
            "conversation_search", json.dumps({"query": "diabetes"}), call_id="c",
            context=ToolContext(memory=memory, turn=9))
        assert json.loads(out.content)["results"] == []
        # Its own words still find it.
        found = [h.id for h in memory.recall_search("noted", k=5).hits]
        assert found[0] == ids["reply"] and ids["secret"] not in found


def test_a_reply_that_holds_the_words_itself_is_still_found(where: dict[str, Any]) -> None:
    # Recall without vectors: words are the only way a message is found.
    where = {**where, "recall_dense": False}
    ids = _written_before_the_policy(where, reply=OWN)
    diabetes = parse_policy("""
rules:
  - {rule_id: diagnosis, category: medical, content_substrings: [diabetes]}
""")
    with make_memory(**where, privacy=diabetes) as memory:
        # "insulin" is the reply's own word too; "diabetes" only its withheld context's.
        for words in ("insulin", "insulins diabetes", "noted insulin"):  # stemmed alike
            found = [h.id for h in memory.recall_search(words, k=5).hits]
            assert found[0] == ids["reply"] and ids["secret"] not in found, words
        assert memory.recall_search("diabetes", k=5).hits == []


def test_a_question_found_through_a_withheld_context_lifts_no_reply(
        where: dict[str, Any]) -> None:
    # The reply holds "insulin" and is withheld itself; the question after it ("What time
    # is it?") matches "insulin" only through it, and would lift its answer ("It is noon.").
    _written_before_the_policy(where, reply=OWN)
    with make_memory(**where, privacy=POLICY) as memory:
        assert memory.recall_search("insulin", k=5).hits == []
        assert memory.query("insulin", k=5) == []
    with make_memory(**where) as memory:
        assert "It is noon." in [h.text for h in memory.recall_search("insulin", k=5).hits]


def test_a_word_the_search_leaves_out_does_not_pass_the_reply(
        where: dict[str, Any]) -> None:
    # "Alice" is in most messages, so the search drops it: the reply's "Alice" is no match
    # of its own, and only its withheld context matched "diabetes".
    where = {**where, "recall_dense": False}
    ids = _written_before_the_policy(where, reply="Noted Alice, filed away.",
                                     before=[f"Alice logged ticket {n}" for n in range(60)])
    with make_memory(**where) as memory:
        assert ids["reply"] in [h.id for h in memory.recall_search("alice diabetes", k=5).hits]
    with make_memory(**where, privacy=POLICY) as memory:
        page = memory.recall_search("alice diabetes", k=5)
        assert page.hits == [] and page.total == 0
        assert memory.query("alice diabetes", k=5) == []


def test_a_policy_without_a_recall_layer_looks_nothing_up(
        where: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _written_before_the_policy(where)
    retention_only = parse_policy("""
rules:
  - {rule_id: diagnosis, category: medical, content_substrings: [insulin]}
recall:
  enabled: false
""")
    with make_memory(**where, privacy=retention_only) as memory:
        def looked_up(*args: Any) -> None:
            raise AssertionError("no recall layer: nothing to look up")

        monkeypatch.setattr(memory.store.messages, "context_sources", looked_up)
        assert [h.id for h in memory.recall_search("diabetes", k=5).hits] == [
            ids["secret"], ids["reply"]]


def test_a_reply_that_matches_by_meaning_is_shown(where: dict[str, Any]) -> None:
    ids = _written_before_the_policy(where)
    with make_memory(**where, privacy=POLICY) as memory:
        reply = memory.recall.get_many([ids["reply"]])[ids["reply"]]
        by_words = dataclasses.replace(reply, relevance=1.0, similarity=None)
        by_meaning = dataclasses.replace(reply, relevance=1.0, similarity=0.6)
        assert shown_with_context(memory, "diabetes", [by_words, by_meaning]) == [False, True]


def test_the_store_names_each_context_and_reads_own_words_alone(
        where: dict[str, Any]) -> None:
    with make_memory(**where) as memory, memory.interaction() as turn:
        first = memory.recall.append("user", "the dogs bark", turn)
        tool = memory.recall.append("tool", "lookup: cats", turn, tool_name="lookup")
        second = memory.recall.append("assistant", "cats purr", turn)
        third = memory.recall.append("user", "birds sing", turn)
        messages = memory.store.messages
        # A tool's output gives no context and takes none.
        assert messages.context_sources([first, tool, second, third]) == {
            second: first, third: second}
        assert messages.matching_own_text(["dog"], [first, second, third]) == {first}
        assert messages.matching_own_text(["barking", "sing"], [first, second, third]) == {
            first, third}
        assert messages.matching_own_text([], [first]) == set()
        assert memory.forget("cats purr", mode="exact").outcome == "matched"
        # The forgotten message leaves the chain: the next one takes the context before it.
        assert messages.context_sources([third]) == {third: first}
        assert messages.matching_own_text(["purr"], [second]) == set()
