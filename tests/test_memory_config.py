"""MemoryConfig: every behaviour setting is validated, stored, reopened and restored."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory, writable_database

from tiermem.memory.config import WALL_TAU, MemoryConfig
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import InvalidConfigError, InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.search.fusion import FusionWeights

# A value other than the default for every field, so a field that does not round-trip shows.
EVERY_SETTING = MemoryConfig(
    core_limit=7, core_limit_unit="facts", policy="lru", clock="wall", tau=3.5,
    recall_dense=False,
    fusion=FusionWeights(0.3, 0.7, method="rrf", rrf_k=5, depth=40, prune_common=False),
    promote_hits=3, recent_promote_hits=6, hysteresis_window=11.5,
)


def _evict_then_reassert(m: HierarchicalMemory) -> str:
    """Fill a one-fact core so "a" is evicted; the caller re-asserts it later."""
    a = m.add_fact("the staging database is postgres 16")
    m.add_fact("the deploy window is on tuesdays")
    assert m.fact(a).tier == "archival"
    return "the staging database is postgres 16"


PROMOTE_AFTER_ONE = {"core_limit": 1, "core_limit_unit": "facts", "promote_hits": 1,
                     "recent_promote_hits": 1}


def test_every_field_differs_from_its_default() -> None:
    default = MemoryConfig()
    for name in MemoryConfig.model_fields:
        assert getattr(EVERY_SETTING, name) != getattr(default, name), name


# -- the promote_hits=1 regression --------------------------------------------------------------
def test_one_reassertion_promotes_in_the_original() -> None:
    with make_memory(**PROMOTE_AFTER_ONE) as m:
        text = _evict_then_reassert(m)
        fid = m.add_fact(text)
        assert m.fact(fid).tier == "core"


def test_one_reassertion_promotes_after_reopening(tmp_path: Path) -> None:
    with make_memory(tmp_path, **PROMOTE_AFTER_ONE) as m:
        text = _evict_then_reassert(m)
    with make_memory(tmp_path) as reopened:
        assert (reopened.promote_hits, reopened.recent_promote_hits) == (1, 1)
        fid = reopened.add_fact(text)
        assert reopened.fact(fid).tier == "core"


@pytest.mark.parametrize("via_json", [False, True])
def test_one_reassertion_promotes_after_restoring(tmp_path: Path, via_json: bool) -> None:
    with make_memory(**PROMOTE_AFTER_ONE) as m:
        text = _evict_then_reassert(m)
        snap = m.snapshot()
    if via_json:
        snap = json.loads(json.dumps(snap))
    with HierarchicalMemory.restore(snap, tmp_path / "r", embedder=HashingEmbedder()) as restored:
        fid = restored.add_fact(text)
        assert restored.fact(fid).tier == "core"


# -- round trips ----------------------------------------------------------------------------------
def _runtime(m: HierarchicalMemory) -> tuple[Any, ...]:
    """What the settings drive, read from the live objects rather than from ``config``."""
    return (m.core.limit, m.core.unit, m.policy.name, m.clock, m.tau, m.recall.vectors is None,
            m.archival.weights, m.recall.weights, m.promote_hits, m.recent_promote_hits,
            m.hysteresis_window)


EXPECTED_RUNTIME = (7, "facts", "lru", "wall", 3.5, True, EVERY_SETTING.fusion,
                    EVERY_SETTING.fusion, 3, 6, 11.5)


def test_every_setting_round_trips_through_reopen_and_snapshot(tmp_path: Path) -> None:
    with make_memory(tmp_path / "home", config=EVERY_SETTING) as m:
        assert m.config == EVERY_SETTING
        assert _runtime(m) == EXPECTED_RUNTIME
        m.add_fact("the office wifi is called mango")
        snap = m.snapshot()
    with make_memory(tmp_path / "home") as reopened:
        assert reopened.config == EVERY_SETTING
        assert _runtime(reopened) == EXPECTED_RUNTIME
    with HierarchicalMemory.restore(json.loads(json.dumps(snap)),
                                    embedder=HashingEmbedder()) as restored:
        assert restored.config == EVERY_SETTING
        assert _runtime(restored) == EXPECTED_RUNTIME
    HierarchicalMemory.restore(snap, tmp_path / "restored", embedder=HashingEmbedder()).close()
    with make_memory(tmp_path / "restored") as reopened:
        assert reopened.config == EVERY_SETTING


def test_every_setting_round_trips_through_the_meta_table() -> None:
    stored = EVERY_SETTING.to_meta()
    assert set(stored) == set(MemoryConfig.model_fields)
    assert MemoryConfig.from_meta(stored.get) == EVERY_SETTING
    assert MemoryConfig.from_meta({}.get) is None


def test_keyword_arguments_override_what_is_stored_and_are_stored(tmp_path: Path) -> None:
    with make_memory(tmp_path, config=EVERY_SETTING):
        pass
    with make_memory(tmp_path, promote_hits=1, tau=9.0) as m:
        assert (m.promote_hits, m.tau, m.core.limit, m.policy.name) == (1, 9.0, 7, "lru")
    with make_memory(tmp_path) as m:
        assert m.config == EVERY_SETTING.updated(promote_hits=1, tau=9.0)
    # A config replaces the stored one whole; a setting given again as a keyword agrees.
    with make_memory(tmp_path, config=MemoryConfig(clock="wall", core_limit=30),
                     core_limit=30, clock="wall") as m:
        assert m.config == MemoryConfig(clock="wall", core_limit=30)
        assert m.tau == WALL_TAU


@pytest.mark.parametrize("keyword, value", [
    ("core_limit", 30), ("core_limit_unit", "facts"), ("tau", 3.0),
    ("fusion", FusionWeights(lexical=0.7)), ("promote_hits", 1),
])
def test_a_keyword_sets_what_the_config_leaves_at_its_default(
        tmp_path: Path, keyword: str, value: object) -> None:
    """``config=MemoryConfig(clock="wall")`` beside ``core_limit=30`` means both."""
    with make_memory(tmp_path, config=MemoryConfig(clock="wall"), **{keyword: value}) as m:
        assert getattr(m.config, keyword) == value
        assert m.config.clock == "wall"


@pytest.mark.parametrize("keyword, value, held", [
    ("core_limit", 10, MemoryConfig(core_limit=5)),
    ("core_limit_unit", "tokens", MemoryConfig(core_limit_unit="facts")),
    ("tau", 3, MemoryConfig(tau=4.0)),
    ("tau", 3, MemoryConfig(clock="wall", tau=5.0)),
    ("policy", "lfu", MemoryConfig(policy="lru")),
    ("fusion", FusionWeights(lexical=0.7), MemoryConfig(fusion=FusionWeights(lexical=0.5))),
    ("promote_hits", 1, MemoryConfig(promote_hits=3)),
])
def test_a_setting_given_both_ways_with_two_values_is_refused(
        tmp_path: Path, keyword: str, value: object, held: MemoryConfig) -> None:
    """Which of the two was meant cannot be told, so neither is used silently."""
    with pytest.raises(InvalidConfigError, match="pass it once") as refused:
        make_memory(tmp_path, config=held, **{keyword: value})
    assert refused.value.fields == (keyword,)
    assert not (tmp_path / "memory.sqlite3").exists()
    # The same value twice is one value (a whole tau written as an int too).
    agreed = held.updated(**{keyword: value})
    with make_memory(tmp_path, config=agreed, **{keyword: value}) as m:
        assert m.config == agreed


def test_a_store_from_before_the_config_opens_with_its_settings(tmp_path: Path) -> None:
    with make_memory(tmp_path, core_limit=40, policy="lfu", tau=12.0, promote_hits=1):
        pass
    # Stores written before MemoryConfig had only these keys, with str() values.
    with writable_database(tmp_path / "memory.sqlite3") as conn:
        conn.execute("DELETE FROM meta WHERE key IN ('recall_dense', 'fusion', 'promote_hits',"
                     " 'recent_promote_hits', 'hysteresis_window')")
        conn.execute("UPDATE meta SET value = '12.0' WHERE key = 'tau'")
    conn.close()
    with make_memory(tmp_path) as m:
        assert m.config == MemoryConfig(core_limit=40, policy="lfu", tau=12.0)


def test_the_clock_cannot_change_once_a_memory_exists(tmp_path: Path) -> None:
    with make_memory(tmp_path):
        pass
    with pytest.raises(InvalidConfigError, match="open it with clock='logical'") as info:
        make_memory(tmp_path, clock="wall")
    assert info.value.fields == ("clock",)
    with make_memory(tmp_path, clock="logical") as m:
        assert m.clock == "logical"


def test_a_new_wall_clock_memory_defaults_tau_to_a_day() -> None:
    assert MemoryConfig(clock="wall").tau == WALL_TAU
    assert MemoryConfig().updated(clock="wall").tau == WALL_TAU
    assert MemoryConfig(tau=5.0).updated(clock="wall", tau=6.0).tau == 6.0


# -- validation -----------------------------------------------------------------------------------
INVALID: list[tuple[str, Any]] = [
    ("core_limit", 0), ("core_limit", -3), ("core_limit", True), ("core_limit", 2.5),
    ("core_limit", "500"), ("core_limit_unit", "bytes"), ("policy", "random"),
    ("clock", "sundial"), ("tau", math.nan), ("tau", math.inf), ("tau", 0.0), ("tau", -1.0),
    ("recall_dense", "yes"), ("promote_hits", 0), ("promote_hits", 1.5),
    ("recent_promote_hits", 0), ("hysteresis_window", math.nan), ("hysteresis_window", -1.0),
    ("fusion", {"lexical": math.nan}), ("fusion", {"dense": math.inf}),
    ("fusion", {"method": "borda"}), ("fusion", {"lexical": 0.0, "dense": 0.0}),
    ("fusion", {"depth": 0}), ("fusion", {"rrf_k": -1}), ("fusion", {"weight": 1.0}),
]


@pytest.mark.parametrize(("field", "value"), INVALID)
def test_invalid_values_are_refused_naming_the_field(field: str, value: Any) -> None:
    with pytest.raises(InvalidConfigError) as info:
        MemoryConfig.parse({field: value})
    assert any(f.split(".")[0] == field for f in info.value.fields), info.value.fields
    assert field in str(info.value)
    assert isinstance(info.value, InvalidInputError)


@pytest.mark.parametrize(("field", "value"), [
    (f, v) for f, v in INVALID if f != "fusion"])
def test_invalid_arguments_are_refused_before_a_file_is_written(
    tmp_path: Path, field: str, value: Any
) -> None:
    home = tmp_path / "home"
    with pytest.raises(InvalidConfigError, match=field):
        make_memory(home, **{field: value})
    with pytest.raises(InvalidConfigError, match=field):
        MemoryConfig(**{field: value})
    assert not (home / "memory.sqlite3").exists()


@pytest.mark.parametrize(("value", "said"), [
    ({"method": "borda"}, "fusion.method: must be 'convex' or 'rrf' (got 'borda')"),
    ({"rrf_k": 0}, "fusion.rrf_k: must be an integer from 1 to 1,000,000 (got 0)"),
    ({"lexical": math.nan}, "fusion.lexical: must be a finite number (got nan)"),
    ({"prune_common": "yes"}, "fusion.prune_common: must be true or false (got 'yes')"),
    # These were taken (text read as a number, 100.0 as 100), as no other setting takes
    # them, or named no weight and no value ("fusion: fusion weights must be non-negative").
    ({"lexical": "0.5"}, "fusion.lexical: must be a number (got '0.5')"),
    ({"rrf_k": "10"}, "fusion.rrf_k: must be a whole number (got '10')"),
    ({"depth": 100.0}, "fusion.depth: must be a whole number (got 100.0; write it as 100)"),
    ({"rrf_k": True}, "fusion.rrf_k: must be a whole number (got True)"),
    ({"dense": -0.5}, "fusion.dense: must be at least 0 (got -0.5)"),
    # It read "fusion: fusion weights lexical and dense ...".
    ({"lexical": 0, "dense": 0.0}, "fusion: lexical and dense must not both be zero"),
])
def test_a_fusion_weight_at_fault_is_named_as_the_setting_names_it(
        value: dict[str, Any], said: str) -> None:
    # These read "fusion: FusionWeights.method must be 'convex' or 'rrf'", naming a Python
    # class where `tiermem config` takes a JSON object, and without the value given.
    with pytest.raises(InvalidConfigError) as info:
        MemoryConfig.parse({"fusion": value})
    assert str(info.value) == f"invalid memory config: {said}"
    assert info.value.fields == (said.split(":")[0],)


def test_fusion_weights_refuse_non_finite_values_when_built_directly() -> None:
    with pytest.raises(ValueError, match="lexical"):
        FusionWeights(math.nan, 0.4)
    with pytest.raises(ValueError, match="dense"):
        FusionWeights(0.6, math.inf)
    with pytest.raises(ValueError, match="depth"):
        FusionWeights(depth=0)


def test_recent_promote_hits_must_be_at_least_promote_hits() -> None:
    with pytest.raises(InvalidConfigError, match=re.escape(
            "recent_promote_hits (3) must be at least promote_hits (4)")):
        MemoryConfig(promote_hits=4, recent_promote_hits=3)
    assert MemoryConfig(promote_hits=4, recent_promote_hits=4).recent_promote_hits == 4


def test_unknown_settings_are_refused_by_name() -> None:
    with pytest.raises(InvalidConfigError, match="promote_hit") as info:
        MemoryConfig.parse({"promote_hit": 1})
    assert info.value.fields == ("promote_hit",)


def test_an_invalid_stored_setting_is_named_on_open(tmp_path: Path) -> None:
    with make_memory(tmp_path):
        pass
    with writable_database(tmp_path / "memory.sqlite3") as conn:
        conn.execute("UPDATE meta SET value = 'NaN' WHERE key = 'tau'")
    conn.close()
    with pytest.raises(InvalidConfigError, match="tau") as info:
        make_memory(tmp_path)
    assert info.value.fields == ("tau",)
    with make_memory(tmp_path, tau=10.0) as m:  # an explicit value replaces it
        assert m.tau == 10.0


def test_config_is_immutable() -> None:
    config = MemoryConfig()
    with pytest.raises(ValueError, match="frozen"):
        config.promote_hits = 1  # type: ignore[misc]


def test_a_format_1_snapshot_restores_with_the_settings_it_has() -> None:
    # Written by the previous release; it carried no promotion or fusion settings.
    snap = json.loads((Path(__file__).parent / "data" / "snapshot_v1.json").read_text())
    assert snap["format"] == "tiermem-snapshot/1"
    with HierarchicalMemory.restore(snap) as m:
        assert m.config == MemoryConfig(core_limit=4, core_limit_unit="facts", tau=7.5)
        assert [(f.id, f.text, f.tier) for f in m.facts()] == [
            (r["id"], r["text"], r["tier"]) for r in snap["tables"]["facts"]]
        assert m.snapshot()["format"] == "tiermem-snapshot/2"
