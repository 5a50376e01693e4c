"""The store's own API writes no fact or history point past the counters its memory
keeps, on either backend: a fact that entered core after the memory's last ``core_seq``,
or was created or read after its last interaction (``tick``, on the interaction clock),
and a history point past that interaction, each make a snapshot its restore refuses. A
refused write says what to give and leaves the store as it was."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory
from snapshot_helpers import restore

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.opening import upgrade_backend
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.records import HistoryPoint
from tiermem.memory.store.references import CounterBehindRowsError
from tiermem.memory.types import Fact

Open = Callable[..., HierarchicalMemory]
Write = Callable[[StorageBackend, int, int], Any]


@pytest.fixture(params=["sqlite", "postgres"])
def opened(request: pytest.FixtureRequest, tmp_path: Path) -> Open:
    if request.param == "postgres":
        dsn = request.getfixturevalue("postgres_dsn")
        return lambda **options: make_memory(store=dsn, agent="ada", **options)
    return lambda **options: make_memory(tmp_path / "home", **options)


def _new_fact(**fields: Any) -> Fact:
    return Fact(**{"id": 0, "text": "User plays chess", "durability": "durable",
                   "created_at": 1.7e9, "created_tick": 0.0, "last_access": 0.0,
                   "access_count": 1, "source": "api", "tokens": 3, **fields})


def _inserted(**fields: Any) -> Callable[[int, int], Fact]:
    return lambda seq, tick: _new_fact(**{k: v(seq, tick) for k, v in fields.items()})


def _point(store: StorageBackend, tick: int) -> None:
    store.history.record(HistoryPoint(tick=tick, created_at=1.7e9, core_facts=1, core_size=3,
                                      durable_in_core=1, archival_passages=0,
                                      recall_messages=2, evictions=0, promotions=0))


def _set_back(store: StorageBackend, key: str, value: int) -> None:
    """``key`` set to ``value`` past the store's checks."""
    if isinstance(store, PostgresBackend):
        store.scope.conn.execute("UPDATE tiermem.settings SET value = %s WHERE agent_id = %s "
                                 "AND key = %s", (str(value), store.scope.agent, key))
    else:
        store.execute("UPDATE meta SET value = ? WHERE key = ?", (str(value), key))


def _counters(m: HierarchicalMemory) -> tuple[int, int]:
    return int(m.store.settings.get("core_seq") or 0), m.tick


def _held(m: HierarchicalMemory) -> dict[str, Any]:
    return m.snapshot()["tables"]


def _a_memory_in_use(m: HierarchicalMemory) -> None:
    m.add_fact("User is vegan", "durable")
    m.process_interaction("My cat is called Miso.", "Nice.")
    m.process_interaction("I work nights.", "Noted.")


PAST: list[tuple[str, Write, str]] = [
    ("inserted entered_core_seq",
     lambda s, seq, tick: s.facts.insert(_new_fact(entered_core_seq=seq + 1), "user plays chess"),
     "fact entered_core_seq is {seq1}, past this memory's core_seq ({seq}, the last entry "
     "into core it counted); give a value up to it, or set 'core_seq' first"),
    ("inserted created_tick",
     lambda s, seq, tick: s.facts.insert(_new_fact(created_tick=tick + 1.0), "user plays chess"),
     "fact created_tick is {tick1}.0, past this memory's tick ({tick}, its last interaction)"),
    ("updated last_access",
     lambda s, seq, tick: s.facts.update(replace(s.facts.in_core()[0], last_access=tick + 0.5)),
     "fact last_access is {tick}.5, past this memory's tick ({tick}, its last interaction)"),
    ("updated entered_core_seq",
     lambda s, seq, tick: s.facts.update(replace(s.facts.in_core()[0],
                                                 entered_core_seq=10**6)),
     "fact entered_core_seq is 1000000, past this memory's core_seq ({seq}"),
    ("history tick", lambda s, seq, tick: _point(s, tick + 1),
     "history tick is {tick1}, past this memory's tick ({tick}, its last interaction); "
     "record a point in an interaction"),
]


@pytest.mark.parametrize(("case", "write", "says"), PAST, ids=[c[0] for c in PAST])
def test_a_write_past_the_memorys_counters_is_refused_and_the_memory_restores(
        opened: Open, tmp_path: Path, case: str, write: Write, says: str) -> None:
    with opened() as m:
        _a_memory_in_use(m)
        seq, tick = _counters(m)
        assert seq == max(f.entered_core_seq for f in m.store.facts.in_core()) and tick > 0
        before = _held(m)
        expected = says.format(seq=seq, seq1=seq + 1, tick=tick, tick1=tick + 1)
        with pytest.raises(InvalidInputError) as refused, m.store.transaction():
            write(m.store, seq, tick)
        assert str(refused.value).startswith(expected)
        assert _held(m) == before
        m.write_snapshot(tmp_path / "snap.json")
    with restore(tmp_path / "snap.json", tmp_path / "restored") as restored:
        assert restored.recall.search("Miso").hits


def test_values_up_to_the_counters_are_written_and_restore(opened: Open,
                                                           tmp_path: Path) -> None:
    with opened() as m:
        _a_memory_in_use(m)
        seq, tick = _counters(m)
        with m.store.transaction():
            m.store.facts.insert(_new_fact(entered_core_seq=seq, created_tick=float(tick),
                                           last_access=float(tick)), "user plays chess")
            _point(m.store, tick)
        m.write_snapshot(tmp_path / "snap.json")
    with restore(tmp_path / "snap.json", tmp_path / "restored") as restored:
        assert "User plays chess" in [f.text for f in restored.store.facts.all()]


def test_a_wall_clock_reads_past_the_tick(opened: Open, tmp_path: Path) -> None:
    with opened(clock="wall") as m:
        _a_memory_in_use(m)
        with m.store.transaction():
            m.store.facts.insert(_new_fact(created_tick=1.7e9, last_access=1.8e9),
                                 "user plays chess")
        m.write_snapshot(tmp_path / "snap.json")
    with restore(tmp_path / "snap.json", tmp_path / "restored") as restored:
        assert "User plays chess" in [f.text for f in restored.store.facts.all()]


def test_an_update_writes_back_a_value_stored_past_the_counters(opened: Open) -> None:
    with opened() as m:
        _a_memory_in_use(m)
        fact = m.store.facts.in_core()[0]
        with m.store.transaction():  # as a version before the checks left it
            _set_back(m.store, "core_seq", fact.entered_core_seq - 1)
        with m.store.transaction():
            m.store.facts.update(replace(fact, access_count=fact.access_count + 1))
        held = m.store.facts.get(fact.id)
        assert held is not None and held.access_count == fact.access_count + 1
        with pytest.raises(InvalidInputError, match=r"^fact entered_core_seq is"):
            m.store.facts.update(replace(held, entered_core_seq=fact.entered_core_seq + 1))


SET_BACK: list[tuple[str, Callable[[int, int], int], str]] = [
    ("core_seq", lambda seq, tick: seq - 1,
     "setting 'core_seq' to {value} sets it below a fact's entry into core ({seq}), and a "
     "snapshot of the memory would not restore; give {seq} or more (it holds {seq})"),
    ("tick", lambda seq, tick: 0,
     "setting 'tick' to 0 sets it below the memory's history or a fact's reading of its "
     "clock ({tick}), and a snapshot of the memory would not restore; give {tick} or more "
     "(it holds {tick})"),
]


@pytest.mark.parametrize(("key", "value", "says"), SET_BACK, ids=[c[0] for c in SET_BACK])
def test_a_counter_set_below_the_rows_is_refused_and_the_memory_restores(
        opened: Open, tmp_path: Path, key: str, value: Callable[[int, int], int],
        says: str) -> None:
    with opened() as m:
        _a_memory_in_use(m)
        seq, tick = _counters(m)
        before = _held(m), m.store.settings.get(key)
        given = value(seq, tick)
        with pytest.raises(InvalidInputError) as refused, m.store.transaction():
            m.store.settings.set(key, given)
        assert str(refused.value) == says.format(value=given, seq=seq, tick=tick)
        assert (_held(m), m.store.settings.get(key)) == before
        with m.store.transaction():  # not below the rows: a memory may set it so
            m.store.settings.set(key, seq if key == "core_seq" else tick)
        with pytest.raises(InvalidInputError, match="give a whole number of 0 or more"):
            m.store.settings.set(key, "soon")
        m.write_snapshot(tmp_path / "snap.json")
    with restore(tmp_path / "snap.json", tmp_path / "restored") as restored:
        assert restored.recall.search("Miso").hits


def test_a_counter_moved_on_costs_one_lookup_and_only_one_set_back_reads_the_rows(
        tmp_path: Path) -> None:
    with make_memory(tmp_path / "home") as m:
        _a_memory_in_use(m)
        reads: list[str] = []
        m.store.conn.set_trace_callback(
            lambda sql: reads.append(sql) if sql.startswith("SELECT") else None)
        try:
            with m.store.transaction():
                m.store.settings.set("tick", m.tick + 1)
            moved_on = list(reads)
            reads.clear()
            with m.store.transaction():
                m.store.settings.set("tick", m.tick)
        finally:
            m.store.conn.set_trace_callback(None)
        assert len(moved_on) == 1 and "FROM meta" in moved_on[0], moved_on
        assert len(reads) == 2 and "FROM facts" in reads[1], reads


def _repair(m: HierarchicalMemory) -> str:
    """The command a refusal names to raise a counter left below the rows of ``m``."""
    if isinstance(m.store, PostgresBackend):
        return "tiermem upgrade --agent ada --store DSN"
    return f"tiermem upgrade --home {m.store.home}"


def _location(m: HierarchicalMemory) -> tuple[str, str | None]:
    if isinstance(m.store, PostgresBackend):
        return m.store.dsn, "ada"
    return str(m.store.home), None


def _left_below_the_rows(opened: Open, key: str) -> tuple[int, int, int]:
    """A memory in use whose counter ``key`` is then set to 0, as a version before the
    checks could leave it: its counters before, and the rows' level of ``key``."""
    with opened() as m:
        _a_memory_in_use(m)
        seq, tick = _counters(m)
        with m.store.transaction():
            _set_back(m.store, key, 0)
    bound = seq if key == "core_seq" else tick
    assert bound >= 2
    return seq, tick, bound


BEHIND = ("this memory's counter {key!r} holds 0, below what its rows hold ({bound}), as an "
          "older tiermem or an edit of its database can leave it, so it cannot move on to "
          "{given}: run `{repair}`, which raises it to {bound} and changes nothing else")


@pytest.mark.parametrize("key", ["core_seq", "tick"])
def test_a_memory_left_below_its_rows_names_the_upgrade_that_lets_it_go_on(
        opened: Open, key: str) -> None:
    seq, tick, bound = _left_below_the_rows(opened, key)
    with opened() as m:
        before = _held(m)
        with pytest.raises(CounterBehindRowsError) as refused, m.store.transaction():
            m.store.settings.set(key, 1)
        assert str(refused.value) == BEHIND.format(key=key, bound=bound, given=1,
                                                   repair=_repair(m))
        with pytest.raises(CounterBehindRowsError) as refused:
            if key == "tick":
                m.process_interaction("I like tea.", "Noted.")
            else:
                m.add_fact("User likes tea", "durable")
        assert f"run `{_repair(m)}`, which raises it to {bound}" in str(refused.value)
        assert _held(m) == before and m.store.settings.get(key) == "0"
        location, agent = _location(m)
    done = upgrade_backend(location, agent)
    assert done.raised == ((key, "0", bound),) and done.changed
    assert upgrade_backend(location, agent).raised == ()
    with opened() as m:
        m.process_interaction("I like tea.", "Noted.")
        m.add_fact("User likes tea", "durable")  # one entry into core, and the second tick
        assert _counters(m) == ((bound if key == "core_seq" else seq) + 1,
                                (bound if key == "tick" else tick) + 2)


def test_sqlite_settings_hold_no_cycle_through_their_counter_check(tmp_path: Path) -> None:
    """The counter check's reads close over the store, not the settings: settings dropped
    are freed by reference counting alone, not left for the garbage collector."""
    import gc
    import weakref

    from tiermem.memory.store.sqlite.history import SQLiteSettings
    from tiermem.memory.store.sqlite.store import SQLiteStore

    store = SQLiteStore(tmp_path / "home")
    try:
        gc.collect()
        gc.disable()
        try:
            settings = SQLiteSettings(store)
            with store.transaction():
                settings.set("tick", 0)  # runs the check, which reads through the store
            dropped = weakref.ref(settings)
            del settings
            assert dropped() is None
        finally:
            gc.enable()
    finally:
        store.close()
