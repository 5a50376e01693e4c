"""`tiermem migrate` killed (SIGKILL) before every statement, index write and rename in turn.

A migrate cut short leaves no memory where it was going, or one marked as unfinished
that every open refuses and that the same migrate then fills; never an empty memory
that opens as one (README, "A migrate cut short").
"""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest
from backends import unavailable

from tiermem.bench import fault_kill_child
from tiermem.bench.fault_os import Report, run_forked
from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import UnfinishedMigrationError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.records import MIGRATING_KEY
from tiermem.memory.store.sqlite import DB_FILE
from tiermem.memory.store.transfer import content_digest, open_backend


def _source(home: Path) -> tuple[dict[str, int], int, str]:
    with HierarchicalMemory(home, embedder=HashingEmbedder(16)) as memory:
        memory.add_fact("User likes figs")
        memory.archival_insert("runbook: restart the worker, then the queue")
        memory.process_interaction("The region is eu-west-1.", "Noted.")
    store = open_backend(str(home), None, read_only=True)
    try:
        return content_digest(store)
    finally:
        store.close()


def _left(place: tuple[str, str | None]) -> tuple[str | None, tuple[dict[str, int], int, str]]:
    """The mark and the content of the memory at ``place``."""
    store = open_backend(*place, read_only=True)
    try:
        return store.settings.get(MIGRATING_KEY), content_digest(store)
    finally:
        store.close()


@pytest.mark.slow
@pytest.mark.parametrize("into", ["sqlite", "postgres"])
def test_a_migrate_killed_at_any_step_leaves_no_memory_or_a_marked_one(
        tmp_path: Path, into: str, request: pytest.FixtureRequest,
        monkeypatch: pytest.MonkeyPatch) -> None:
    if into == "postgres" and unavailable("postgres") is not None:
        pytest.skip(unavailable("postgres") or "")
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "tiermem"))
    source = tmp_path / "source"
    whole = _source(source)
    dsn = request.getfixturevalue("postgres_dsn") if into == "postgres" else ""

    def place(name: str) -> tuple[str, str | None]:
        return (dsn, name) if dsn else (str(tmp_path / name), None)

    def migrate_args(name: str) -> list[str]:
        target = place(name)
        return ["migrate", "--from", str(source), "--to", target[0],
                *(["--agent", name] if dsn else [])]

    def exists(name: str) -> bool:
        if dsn:
            from tiermem.memory.store.postgres.connection import stored_agents

            return name in (stored_agents(dsn) or [])
        return (Path(place(name)[0]) / DB_FILE).exists()

    # A first migrate, not killed, so a database has its schema before the kills begin.
    assert main(migrate_args("first")) == 0
    assert _left(place("first")) == (None, whole)
    outcomes: Counter[str] = Counter()
    for at in itertools.count(1):
        name = f"k{at}"

        def work(report: Report, at: int = at, name: str = name) -> None:
            fault_kill_child.Tripwire(at).arm()
            report(f"exit {main(migrate_args(name))}")

        outcome = run_forked(work)
        assert outcome.killed, (at, outcome)
        if not exists(name):
            outcomes["nothing"] += 1
            if at % 8:  # what such kills leave beside no memory is the same: try a few
                continue
        else:
            mark, content = _left(place(name))
            if mark is None:  # the copy committed: the kill came after its last step
                assert content == whole, f"killed before step {at}: an unmarked {content}"
                break
            assert mark == str(source), (at, mark)
            assert not any(content[0].values()), (at, content)
            outcomes["marked"] += 1
            with pytest.raises(UnfinishedMigrationError, match="run the migrate again"):
                HierarchicalMemory(embedder=HashingEmbedder(16), **(
                    {"store": dsn, "agent": name} if dsn else {"path": place(name)[0]}))
        # The same migrate again copies it whole, whatever the kill left there.
        assert main(migrate_args(name)) == 0, at
        assert _left(place(name)) == (None, whole)
    # Kills came before the target was made, and at each step after.
    assert outcomes["nothing"] > 0 and sum(outcomes.values()) > 10, outcomes


def test_a_memory_made_in_a_new_home_as_the_migrate_begins_is_left_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Another process opened the home between the migrate's look (no database: build one
    # aside) and its taking the home's lock: that memory is not replaced.
    from tiermem.memory.store import transfer

    source = tmp_path / "source"
    _source(source)
    target = tmp_path / "target"
    with HierarchicalMemory(target, embedder=HashingEmbedder(16)) as memory:
        memory.add_fact("User keeps bees")
    monkeypatch.setattr(transfer, "builds_aside", lambda location: True)
    store = open_backend(str(source), None, read_only=True)
    try:
        with pytest.raises(transfer.StoreError, match="another process created a memory"), \
                transfer.migration_target(str(target), None, store):
            pass
    finally:
        store.close()
    with HierarchicalMemory(target, embedder=HashingEmbedder(16)) as memory:
        assert [f.text for f in memory.facts()] == ["User keeps bees"]
