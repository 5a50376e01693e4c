"""`tiermem config` replaces a setting a PostgreSQL agent stores that cannot be read, as it
does in an agent home."""

from __future__ import annotations

import pytest

from tiermem.cli import run
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.opening import open_backend


def _meta(dsn: str, **values: str) -> dict[str, str | None]:
    """Store ``values`` as a hand edit would; the settings stored afterwards."""
    backend = open_backend(dsn, "a", read_only=False)
    try:
        with backend.transaction():
            for key, value in values.items():
                backend.settings.set(key, value)
        return {key: backend.settings.get(key) for key in ("core_limit", "tau", "fusion")}
    finally:
        backend.close()


def test_unreadable_stored_settings_are_replaced_in_turn(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    with HierarchicalMemory(store=postgres_dsn, agent="a", embedder=HashingEmbedder()) as m:
        m.archival_insert("I am allergic to peanuts.")
    before = _meta(postgres_dsn, fusion='{"depth": 50.0}', tau="abc")
    store = ["--store", postgres_dsn, "--agent", "a"]
    assert run(["config", *store, "core_limit", "1500"]) == 2
    refused = capsys.readouterr().err
    assert "'abc' is not a number or JSON value, as agent a's memory stores it" in refused
    assert "--agent a tau VALUE` replaces it" in refused
    assert run(["config", *store, "tau", "30"]) == 2  # fusion cannot be read yet
    assert "tau (its stored value unreadable) → 30" in capsys.readouterr().out
    assert _meta(postgres_dsn) == {**before, "tau": "30.0"}
    assert run(["config", *store, "fusion", '{"depth": 50}']) == 0
    assert "fusion (its stored value unreadable) → {" in capsys.readouterr().out
    assert _meta(postgres_dsn)["core_limit"] == before["core_limit"]
