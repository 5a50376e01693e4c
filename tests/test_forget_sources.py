"""Forgetting a fact leaves the message it was learned from: answers do not quote that
message's statement of it back."""

from __future__ import annotations

import json

from memory_helpers import make_memory
from offline_helpers import chat, core_of

from tiermem.memory import HierarchicalMemory
from tiermem.tools.memory_tools import ToolContext, memory_toolbox

SAID = "My gym is FitLife on 5th street"
FACT = "User's gym is FitLife on 5th street"


def _search(memory: HierarchicalMemory, query: str) -> list[dict[str, object]]:
    result = memory_toolbox().dispatch(
        "conversation_search", json.dumps({"query": query, "roles": ["user"]}),
        call_id="c", context=ToolContext(memory=memory, turn=memory.tick + 1))
    return list(json.loads(result.content)["results"])


def test_an_offline_answer_does_not_quote_the_message_of_a_forgotten_fact() -> None:
    with make_memory() as m:
        chat(m, SAID, "My dentist is Dr. Lee and my gym is Iron Works")
        assert m.forget(FACT).outcome == "matched"
        # Forgetting the fact left the user's message, which still says it.
        assert SAID in [h.text for h in m.recall_search("FitLife", roles=["user"]).hits]
        # The search result says which facts of the message were forgotten, the model's too.
        hits = {h["text"]: h for h in _search(m, "gym")}
        assert hits[SAID]["forgotten"] == [FACT]
        assert "forgotten" not in hits["My dentist is Dr. Lee and my gym is Iron Works"]
        now, before = chat(m, "What's my gym?", "What was my gym?")
        assert "FitLife" not in now and "Iron Works" in now
        # A question about the past read recall, and left the forgotten statement out.
        assert "FitLife" not in before
        assert "From our conversation" in before and "Iron Works" in before


def test_an_offline_answer_leaves_out_a_sentence_that_answers_only_with_what_was_forgotten(
) -> None:
    with make_memory() as m:
        chat(m, "My gym is FitLife on 5th street and my dentist is Dr. Lee")
        m.forget(FACT)
        assert list(core_of(m)) == ["User's dentist is Dr. Lee"]
        [reply] = chat(m, "What was my gym?")
        assert "FitLife" not in reply, reply


def test_the_fact_stated_again_is_stored_and_quoted_again() -> None:
    with make_memory() as m:
        chat(m, SAID)
        m.forget(FACT)
        [stored, answer] = chat(m, SAID + ".", "What's my gym?")
        assert FACT in core_of(m) and "core + " + FACT in stored
        assert "From core memory: " + FACT in answer
        # No longer forgotten: the first message says nothing the user forgot.
        assert not any("forgotten" in h for h in _search(m, "FitLife"))
