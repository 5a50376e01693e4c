"""A read-only memory kept open while a writer works reads what the writer committed:
facts, erasures, evictions, passages found by meaning alone, and counts. One call reads
one state, and a call with nothing new reloads nothing."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import backend_place, make_memory

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.tiers.core import CoreTier

CARD = "User card number is 4111 1111"


Pair = tuple[HierarchicalMemory, HierarchicalMemory]


@pytest.fixture(params=["sqlite", "postgres"])
def open_pair(request: pytest.FixtureRequest,
              tmp_path: Path) -> Callable[[], contextlib.AbstractContextManager[Pair]]:
    """A writer holding two facts in a core of two, and a reader opened after them."""
    if request.param == "sqlite":
        where: dict[str, Any] = {"path": tmp_path / "home"}
    else:
        where = {"store": request.getfixturevalue("postgres_dsn"), "agent": "alice"}

    @contextlib.contextmanager
    def pair() -> Iterator[Pair]:
        with make_memory(**where, core_limit=2, core_limit_unit="facts") as writer:
            writer.add_fact(CARD)
            writer.add_fact("User likes green tea")
            with make_memory(**where, read_only=True) as reader:
                yield writer, reader

    return pair


def test_an_erasure_by_the_writer_leaves_what_an_open_reader_shows(open_pair: Any) -> None:
    with open_pair() as (writer, reader):
        assert CARD in [text for _, text in reader.core_shown()]
        card_id = next(f.id for f in reader.facts() if f.text == CARD)
        assert writer.forget(CARD, erase=True).outcome == "matched"
        assert [text for _, text in reader.core_shown()] == ["User likes green tea"]
        assert all(CARD not in hit.text for hit in reader.query("card number"))
        assert reader.fact(card_id) is None
        assert all(f.text != CARD for f in reader.facts())
        assert len(reader.core) == 1


def test_a_readers_tier_views_catch_up_without_another_call_first(open_pair: Any) -> None:
    # len(), iteration and core.used are what a dashboard reads: not a copy from the last
    # call, which would still show what the writer has since erased.
    with open_pair() as (writer, reader):
        assert len(reader.archival) == 0 and len(reader.recall) == 0
        writer.forget(CARD, erase=True)
        writer.archival_insert("the runbook lives in the wiki")
        writer.recall.append("user", "hello", writer.tick)
        assert [f.text for f in reader.core] == ["User likes green tea"]
        assert (len(reader.core), reader.core.used) == (1, 1)
        assert (len(reader.archival), len(reader.recall)) == (1, 1)


def test_a_closed_memorys_tier_views_refuse_rather_than_answer(open_pair: Any) -> None:
    from tiermem.memory.errors import StoreClosedError

    with open_pair() as (writer, reader):
        pass
    for closed in (writer, reader):
        for read in (lambda m: len(m.core), lambda m: list(m.core), lambda m: m.core.used,
                     lambda m: len(m.archival), lambda m: len(m.recall)):
            with pytest.raises(StoreClosedError):
                read(closed)


def test_a_reader_lists_what_the_writer_evicted_as_archived(open_pair: Any) -> None:
    with open_pair() as (writer, reader):
        assert reader.tick == 2
        writer.add_fact("User lives in Lisbon")
        writer.add_fact("User works nights")
        in_core = [f.text for f in reader.facts() if f.tier == "core"]
        assert len(in_core) == 2 and set(in_core) == {f.text for f in writer.core}
        assert reader.tick == writer.tick == 4
        assert reader.totals["evictions"] == writer.totals["evictions"] == 2


def test_one_call_of_a_reader_reads_one_state_though_the_writer_commits_during_it(
        open_pair: Any) -> None:
    # The catch-up and the rows read after it saw two states: core's copy from before
    # the commit beside rows from after it showed four facts in a core of two.
    with open_pair() as (writer, reader):
        before = sorted(f.text for f in writer.core)
        read_rows = reader.store.facts.all

        def committed_meanwhile() -> Any:
            writer.add_fact("User lives in Lisbon")
            writer.add_fact("User works nights")
            return read_rows()

        reader.store.facts.all = committed_meanwhile  # type: ignore[method-assign]
        facts = reader.facts()
        reader.store.facts.all = read_rows  # type: ignore[method-assign]
        assert sorted(f.text for f in facts if f.tier == "core") == before
        assert len(facts) == 2  # the state the call began in: the writer's two adds after it
        in_core = sorted(f.text for f in reader.facts() if f.tier == "core")
        assert in_core == sorted(f.text for f in writer.core)  # the next call: the new state


def test_a_postgres_reader_lists_one_state_when_a_commit_beats_its_snapshot(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A commit between the notices and the read transaction is in the state read, but
    # reloaded by the next call: the facts listed are the rows, not core's older copy.
    from tiermem.memory.store.postgres.backend import PostgresBackend

    where = {"store": postgres_dsn, "agent": "alice"}
    with make_memory(**where, core_limit=2, core_limit_unit="facts") as writer:
        writer.add_fact(CARD)
        writer.add_fact("User likes green tea")
        with make_memory(**where, read_only=True) as reader:
            noticed = PostgresBackend._changed_elsewhere

            def commit_after_the_notices(self: PostgresBackend) -> bool:
                changed = noticed(self)
                if self is reader.store and not self.in_transaction and changed is False:
                    monkeypatch.setattr(PostgresBackend, "_changed_elsewhere", noticed)
                    writer.add_fact("User lives in Lisbon")
                    writer.add_fact("User works nights")
                return changed

            monkeypatch.setattr(PostgresBackend, "_changed_elsewhere",
                                commit_after_the_notices)
            in_core = [f.text for f in reader.facts() if f.tier == "core"]
            assert sorted(in_core) == sorted(f.text for f in writer.core)


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    return backend_place(request, tmp_path, "settings")


def test_a_reader_takes_the_settings_a_writer_opened_since_stored(where: dict[str, Any]
                                                                  ) -> None:
    # It kept its open's core_limit while the writer's core grew to the new one, and
    # reported that core at 350% of its limit.
    with make_memory(**where, core_limit=20) as first:
        first.add_fact("durable fact number one here", "durable")
    with make_memory(**where, read_only=True) as reader:
        assert reader.core.limit == 20
        with make_memory(**where, core_limit=3, core_limit_unit="facts",
                         policy="lru", promote_hits=3) as writer:
            for i in range(3):
                writer.add_fact(f"durable fact number {i} again here", "durable")
            assert reader.config == writer.config == reader.stored_config()
            assert (reader.core.used, reader.core.limit, reader.core.unit) == (3, 3, "facts")
            assert reader.diagnostics()["core"]["fill"] == 1.0
            assert reader.policy.name == "lru"


def test_a_reader_keeps_the_settings_it_was_opened_with(where: dict[str, Any]) -> None:
    with make_memory(**where, core_limit=20) as first:
        first.add_fact("durable fact number one here", "durable")
    with make_memory(**where, read_only=True, promote_hits=3) as reader:
        with make_memory(**where, core_limit=30, promote_hits=1) as writer:
            writer.add_fact("another durable fact", "durable")
            assert (reader.config.core_limit, reader.config.promote_hits) == (30, 3)
        with make_memory(**where, recent_promote_hits=2, promote_hits=1):
            pass  # the reader's promote_hits no longer fits: the writer's settings stand
        assert (reader.config.promote_hits, reader.config.recent_promote_hits) == (1, 2)


def test_a_reader_finds_a_new_passage_by_its_vector(open_pair: Any) -> None:
    with open_pair() as (writer, reader):
        assert reader.archival_search("feline rug nap").total == 0
        writer.archival_insert("feline rug nap all afternoon")
        hits = reader.archival_search("feline rug nap")
        assert hits.total == 1 and hits.hits[0].similarity is not None
        assert len(reader.archival) == 1
        differences = getattr(reader.archival.vectors, "differences", None)
        assert differences is None or differences() == []  # SQLite's FAISS index


@pytest.fixture
def reloads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per reload of core, by any memory opened in the test."""
    counted: list[int] = []
    reload = CoreTier.reload

    def counting(self: CoreTier) -> None:
        counted.append(1)
        reload(self)

    monkeypatch.setattr(CoreTier, "reload", counting)
    return counted


def test_a_reader_reloads_only_after_a_commit(open_pair: Any, reloads: list[int]) -> None:
    with open_pair() as (writer, reader):
        opened = len(reloads)
        for _ in range(3):
            reader.core_shown()
            reader.query("tea")
        assert len(reloads) == opened  # no commit: nothing reloaded
        writer.add_fact("User drinks coffee at night")
        writer.add_fact("User runs on Sundays")
        reader.query("coffee")
        assert len(reloads) == opened + 1  # once, though query() makes nested calls


def test_a_writer_never_catches_up_with_itself(tmp_path: Path) -> None:
    with make_memory(tmp_path / "home") as writer:
        writer.add_fact("User likes green tea")
        assert writer.store.catch_up() is False


def test_a_reader_searches_by_vector_after_an_erasure_and_a_reopened_writer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.memory.store.sqlite import vectors

    monkeypatch.setattr(vectors, "PREFILTER_MIN_ROWS", 5)  # the 8-bit scan from 5 rows on
    home = tmp_path / "home"
    texts = [f"otter note {i} about kelp forests and tides" for i in range(12)]
    with make_memory(home) as writer:
        ids = [writer.archival_insert(text) for text in texts]
        with make_memory(home, read_only=True) as reader:
            assert reader.archival_search("kelp forests", k=20).total == 12
            assert reader.archival.vectors.prefilter is not None
            writer.erase(passages=[ids[5]], reason="asked")  # the writer saves its index
            found = reader.archival_search("kelp forests", k=20)
            assert found.total == 11 and all("note 5 " not in h.text for h in found.hits)
    with make_memory(home) as writer, make_memory(home, read_only=True) as reader:
        reader.archival_search("kelp forests", k=20)
        writer.archival_insert("sea urchins graze the kelp forests")
        writer.close()  # saved again, with the new row
        hits = reader.archival_search("sea urchins graze", k=20).hits
        assert hits[0].text.startswith("sea urchins") and hits[0].similarity is not None


def test_a_reader_is_told_when_its_writer_re_embedded_the_memory(tmp_path: Path) -> None:
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.errors import EmbedderMismatchError

    home = tmp_path / "home"
    with make_memory(home) as writer:
        writer.archival_insert("otters hold hands while they sleep")
    with make_memory(home, read_only=True) as reader:
        assert reader.archival_search("otters").total == 1
        HierarchicalMemory.reindex(home, HashingEmbedder(128)).close()
        for _ in range(2):  # refused again: the catch-up stays owed
            with pytest.raises(EmbedderMismatchError, match=r"\(dim 128\)"):
                reader.archival_search("otters")


def test_a_postgres_reader_without_listen_reloads_on_every_call(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch, reloads: list[int]) -> None:
    from tiermem.memory.store.postgres import backend

    monkeypatch.setattr(backend, "listen_for_commits", lambda *args: False)  # as on a hot standby
    where = {"store": postgres_dsn, "agent": "alice"}
    with make_memory(**where) as writer:
        writer.add_fact(CARD)
        with make_memory(**where, read_only=True) as reader:
            opened = len(reloads)
            reader.core_shown()
            reader.core_shown()
            assert len(reloads) == opened + 2
            assert writer.forget(CARD, erase=True).outcome == "matched"
            assert reader.core_shown() == []
