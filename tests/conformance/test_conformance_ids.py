"""An id names one row for good: once a message, fact or passage is erased, no row stored after
it takes its id, not after a reopen, nor in a memory restored from a snapshot.

Else an erasure record, a forget request's ids, an event or a note that says "message 12"
would name a later, unrelated row.
"""

from __future__ import annotations

import json

import pytest
from backends import Backend

from tiermem.memory.hierarchy import HierarchicalMemory

KINDS = ("message", "fact", "passage")


def _store(m: HierarchicalMemory, kind: str, text: str) -> int:
    if kind == "message":
        return m.recall.append("user", text, m.tick)
    if kind == "fact":
        return m.add_fact(text, "durable")
    return m.archival_insert(text)


def _erase(m: HierarchicalMemory, kind: str, row_id: int) -> None:
    report = m.erase(**{f"{kind}s": [row_id]}, reason="asked to erase it")
    assert getattr(report, f"{kind}s") == 1


def _store_and_erase_newest(m: HierarchicalMemory, kind: str) -> int:
    _store(m, kind, "the office is on the third floor")
    newest = _store(m, kind, "the gate code is 2291")
    _erase(m, kind, newest)
    return newest


@pytest.mark.parametrize("kind", KINDS)
def test_the_newest_id_erased_is_not_given_again(backend: Backend, kind: str) -> None:
    with backend.memory() as m:
        erased = _store_and_erase_newest(m, kind)
        assert _store(m, kind, "the printer is by the lifts") > erased


@pytest.mark.parametrize("kind", KINDS)
def test_the_newest_id_erased_is_not_given_again_after_a_reopen(backend: Backend,
                                                                 kind: str) -> None:
    home = backend.home()
    with home.open() as m:
        erased = _store_and_erase_newest(m, kind)
    with home.open() as m:
        assert _store(m, kind, "the printer is by the lifts") > erased


@pytest.mark.parametrize("kind", KINDS)
def test_a_restored_memory_gives_no_id_the_original_erased(backend: Backend, kind: str) -> None:
    with backend.memory() as m:
        erased = _store_and_erase_newest(m, kind)
        snapshot = json.loads(json.dumps(m.snapshot()))
    with backend.restored(snapshot) as restored:
        assert _store(restored, kind, "the printer is by the lifts") > erased


@pytest.mark.parametrize("kind", ["fact", "passage"])
def test_a_snapshot_from_before_the_marks_restores_them_from_its_records(
        backend: Backend, kind: str) -> None:
    # Such a snapshot holds no erased-id settings; its events (a fact's) and forget audit
    # (a forgotten row's) still name what was erased, as an upgraded memory's do.
    with backend.memory() as m:
        _store(m, kind, "the office is on the third floor")
        erased = _store(m, kind, "the gate code is 2291")
        assert m.forget("the gate code is 2291", erase=True).outcome == "matched"
        snapshot = json.loads(json.dumps(m.snapshot()))
    assert snapshot["settings"].pop(f"max_erased_{kind}_id") == erased
    with backend.restored(snapshot) as restored:
        assert _store(restored, kind, "the printer is by the lifts") > erased


@pytest.mark.parametrize("kind", KINDS)
def test_a_memory_restored_over_another_gives_no_id_the_original_erased(
        backend: Backend, kind: str) -> None:
    with backend.memory() as m:
        erased = _store_and_erase_newest(m, kind)
        snapshot = m.snapshot()
    home = backend.home()
    with home.open() as other:
        _store(other, kind, "the canteen closes at three")
    with home.restore(snapshot, replace=True) as restored:
        assert _store(restored, kind, "the printer is by the lifts") > erased


def test_a_batch_of_messages_starts_after_the_erased_ones(backend: Backend) -> None:
    with backend.memory() as m:
        first = m.recall.append("user", "the office is on the third floor", 1)
        m.recall.append("assistant", "noted", 1)
        newest = m.recall.append("user", "the gate code is 2291", 2)
        m.erase(messages=[newest, first], reason="asked to erase them")
        with m.store.transaction():
            ids = m.store.messages.append_many(
                [m.store.messages.get_many([first + 1])[first + 1]] * 3, bulk=True)
        assert ids == [newest + 1, newest + 2, newest + 3]
        assert sorted(m.store.messages.get_many(ids)) == ids


def test_an_erasure_record_keeps_naming_a_message_that_is_gone(backend: Backend) -> None:
    with backend.memory() as m:
        erased = _store_and_erase_newest(m, "message")
        later = m.recall.append("user", "the printer is by the lifts", m.tick)
        assert m.store.messages.get_many([erased]) == {}
        assert [h.id for h in m.recall_search("printer lifts").hits] == [later]


def test_the_events_of_an_erased_fact_show_no_later_fact(backend: Backend) -> None:
    with backend.memory() as m:
        erased = _store_and_erase_newest(m, "fact")
        m.add_fact("the printer is by the lifts", "durable")
        about_erased = [e for e in m.events_since(0) if e["fact_id"] == erased]
        assert about_erased and {e["text"] for e in about_erased} == {""}


def test_a_snapshot_carries_the_erased_ids_only_once_a_row_was_erased(backend: Backend) -> None:
    # Older versions refuse a setting they do not know: a memory that never erased a fact
    # or passage must still give them a snapshot they can restore.
    with backend.memory() as m:
        _store(m, "fact", "the office is on the third floor")
        assert not {"max_erased_fact_id", "max_erased_passage_id"} & set(
            m.snapshot()["settings"])
        erased = _store_and_erase_newest(m, "fact")
        settings = m.snapshot()["settings"]
    assert settings["max_erased_fact_id"] == erased
    assert "max_erased_passage_id" not in settings
