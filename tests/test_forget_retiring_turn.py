"""Through the offline chat: after "I live in Berlin." and "Forget that.", the reply says to
run /forget User lives in Berlin "to remove it for good". That forget left the "Forget
that." turn's call, tool result and reply, each quoting the fact, in recall; now the
user's own message, which the forget names as kept, is all that says it."""

from __future__ import annotations

from offline_helpers import chat

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.ops.quoting import message_strings


def _saying(memory: HierarchicalMemory, word: str) -> list[tuple[str, str]]:
    """The live messages holding ``word`` in their content or tool calls, as (role, content)."""
    turns = range(1, memory.tick + 1)
    return [(m.role, m.content) for m in memory.store.messages.in_turns(list(turns))
            if any(word in text for text in message_strings(m))]


def test_the_forget_the_reply_asks_for_leaves_only_the_users_own_words() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "I live in Berlin.", "Forget that.")[-1]
        assert "to remove it for good: /forget User lives in Berlin" in reply
        result = memory.forget("User lives in Berlin")
        assert _saying(memory, "Berlin") == [("user", "I live in Berlin.")]
        kept = memory.store.messages.get_many(list(result.sources_kept))
        assert [m.content for m in kept.values()] == ["I live in Berlin."]
        memory.forget("I live in Berlin.")
        assert _saying(memory, "Berlin") == []


def test_forgetting_the_users_words_keeps_the_message_that_moved_on() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, "I live in Berlin.", "I moved to Munich. Tom still thinks I live in Berlin.")
        memory.forget("I live in Berlin.")
        # That message told the move and Tom's belief, both still in core: it is theirs.
        assert [content for role, content in _saying(memory, "Berlin") if role == "user"] == [
            "I moved to Munich. Tom still thinks I live in Berlin."]
        sources = {f.source_message_id for f in memory.core}
        assert len(sources) == 1
        assert len(memory.store.messages.get_many(list(sources))) == 1
