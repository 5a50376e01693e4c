"""Emoji and other symbols are found by search, in every tier, also in memories made before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_helpers import sqlite_store_at_version

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.store.sqlite import schema
from tiermem.memory.text.extract import fact_norm
from tiermem.memory.text.symbols import indexed_text, symbol_words
from tiermem.memory.text.tokenizer import TokenCounter
from tiermem.memory.tiers.recall import NewMessage

PEANUTS = "I am allergic to peanuts🥜, and I love 🍕🍕"


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def recall_texts(memory: HierarchicalMemory, query: str) -> list[str]:
    return [hit.text for hit in memory.recall_search(query).hits]


def test_an_emoji_finds_the_messages_passages_and_facts_that_hold_it(
        memory: HierarchicalMemory) -> None:
    # Before it: the message after one holds its words as full-text context.
    memory.recall.append("user", "pizza without any symbol", 1)
    memory.recall.append("user", PEANUTS, 2)
    memory.archival_insert("The release went out 🎉 on Friday")
    memory.add_fact("User's favourite food is 🍣")
    assert recall_texts(memory, "🥜") == [PEANUTS]
    assert recall_texts(memory, "🍕") == [PEANUTS]
    assert [h.text for h in memory.archival_search("🎉").hits] == [
        "The release went out 🎉 on Friday"]
    assert [h.text for h in memory.query("🍣")] == ["User's favourite food is 🍣"]


def test_a_word_next_to_an_emoji_is_still_found_by_the_word(memory: HierarchicalMemory) -> None:
    memory.recall.append("user", PEANUTS, 1)
    assert recall_texts(memory, "peanuts") == [PEANUTS]
    assert recall_texts(memory, "🌭") == []  # another symbol matches nothing


def test_a_bulk_import_indexes_symbols_too(memory: HierarchicalMemory) -> None:
    memory.recall.append_many([NewMessage("user", "no", 1), NewMessage("user", PEANUTS, 2)],
                              bulk=True)
    assert recall_texts(memory, "🥜") == [PEANUTS]


def test_symbols_are_indexed_as_plain_words_of_their_own() -> None:
    assert symbol_words("plain ascii") == []
    assert symbol_words("a 🥜 b ❤ c 🥜") == ["sym1f95cx", "sym2764x", "sym1f95cx"]
    assert indexed_text("tea☕!") == "tea sym2615x !"
    assert indexed_text("café") == "café"  # letters are words already


def test_a_memory_made_before_symbols_were_indexed_finds_them_after_upgrading(
        tmp_path: Path) -> None:
    # A database at schema version 2: texts indexed as they are, symbols dropped. Its rows
    # are written as that version's code wrote them (today's reads need later columns).
    fact = "User's favourite food is 🍣"
    with sqlite_store_at_version(tmp_path, 2) as before:
        with before.transaction():
            before.execute("INSERT INTO messages (turn, role, content, created_at)"
                           " VALUES (1, 'user', ?, 0)", (PEANUTS,))
            before.execute("INSERT INTO passages (text, created_at) VALUES (?, 0)",
                           ("The release went out 🎉 on Friday",))
            before.execute(
                "INSERT INTO facts (text, norm, durability, tier, created_at, created_tick,"
                " last_access, last_counted_tick, tokens) VALUES (?, ?, 'durable', 'core',"
                " 0, 0, 0, 0, ?)", (fact, fact_norm(fact), TokenCounter().count(fact)))
        assert before.execute("SELECT count(*) FROM messages_fts"
                              " WHERE messages_fts MATCH 'sym1f95cx'").fetchone()[0] == 0
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as after:
        assert after.store.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
        assert recall_texts(after, "🥜") == [PEANUTS]
        assert after.archival_search("🎉").total == 1
        assert [h.text for h in after.query("🍣")] == ["User's favourite food is 🍣"]
        # Rows indexed again by the upgrade leave the index cleanly when they go.
        message_id = next(r["id"] for r in after.recall.iter_rows())
        assert after.recall.erase([message_id], reason="test") == 1
        assert recall_texts(after, "🥜") == [] and recall_texts(after, "peanuts") == []
        after.replace_in_core("User's favourite food is 🍣", "User's favourite food is ramen")
        assert after.store.execute(
            "SELECT count(*) FROM facts_fts WHERE facts_fts MATCH 'sym1f363x'").fetchone()[0] == 0
