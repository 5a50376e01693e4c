"""Edits and retirements leave no stale copy of a fact's old text behind."""

from __future__ import annotations

from leak_helpers import read_paths_showing
from memory_helpers import check_archival_consistent, make_memory


def test_redacted_card_number_is_gone_from_every_read_path() -> None:
    memory = make_memory(core_limit=2, core_limit_unit="facts", promote_hits=1,
                         recent_promote_hits=1)
    card = memory.add_fact("my card number is 4111 1111", "durable")
    memory.add_fact("my favourite colour is teal", "durable")
    memory.add_fact("my dog is called Biscuit", "durable")
    assert memory.fact(card).tier == "archival"  # evicted, so archival has its passage
    memory.add_fact("my card number is 4111 1111", "durable")
    assert memory.fact(card).tier == "core"  # promoted back

    memory.replace_in_core("4111 1111", "redacted")

    assert [f.text for f in memory.core if f.id == card] == ["my card number is redacted"]
    assert read_paths_showing(memory, "4111 1111", query="card number 4111") == []
    hits = memory.archival_search("card number").hits
    assert [h.text for h in hits if h.fact_id == card] == ["my card number is redacted"]
    check_archival_consistent(memory)


def test_a_fact_edited_in_core_is_found_by_its_new_words_in_archival() -> None:
    memory = make_memory(core_limit=1, core_limit_unit="facts", promote_hits=1,
                         recent_promote_hits=1)
    fact = memory.add_fact("the deploy window is Tuesday", "durable")
    memory.add_fact("the on-call lead is Priya", "durable")
    memory.add_fact("the deploy window is Tuesday", "durable")  # promoted back
    memory.replace_in_core("Tuesday", "Thursday")

    hits = memory.archival_search("deploy window Thursday").hits
    assert [h.fact_id for h in hits][:1] == [fact]
    assert not any("Tuesday" in h.text for h in memory.archival_search("Tuesday").hits)


def test_events_keep_the_replaced_texts_size_not_the_text_nor_a_digest() -> None:
    memory = make_memory()
    memory.add_fact("my PIN is 9931", "durable")
    memory.replace_in_core("9931", "private")
    replace = [e for e in memory.events_since(0) if e["kind"] == "replace"]
    assert len(replace) == 1
    assert "9931" not in replace[0]["detail"]
    # Only its size: a digest of a PIN is reversed by trying all 10,000.
    assert replace[0]["detail"] == "old_chars=4"
    # The text shown with an event is the fact as it is now.
    assert replace[0]["text"] == "my PIN is private"
    stored = list(memory.store.export_rows("events"))
    assert all(row["text"] == "" and "9931" not in row["detail"] for row in stored)
