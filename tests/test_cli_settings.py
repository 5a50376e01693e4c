"""Stored settings change only through `tiermem config`; a session flag says what it does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import tiermem

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def chat(home: Path, *flags: str, stdin: str = "") -> str:
    done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", *flags, stdin=stdin)
    assert done.returncode == 0, done.stderr
    return done.stderr


def stored_core(home: Path) -> tuple[int, int]:
    """(core limit, facts in core) as the next session opens them."""
    with HierarchicalMemory(home / "agents" / "a", embedder=HashingEmbedder(),
                            read_only=True) as memory:
        return memory.core.limit, len(memory.core)


def test_a_session_core_limit_is_announced_and_not_stored(home: Path) -> None:
    chat(home, stdin="I am allergic to peanuts.\nMy name is Ada.\nI live in Lisbon.\n")
    assert stored_core(home) == (2000, 3)
    note = chat(home, "--core-limit", "6", stdin="/core\n")
    assert "core limit 2000 → 6 tokens for this session; 2 facts moved to archival" in note
    assert "tiermem config --agent a core_limit 6" in note
    limit, _ = stored_core(home)
    assert limit == 2000  # the next session has the stored limit again
    assert chat(home, stdin="/core\n") == ""  # and nothing to announce


def test_config_shows_and_stores_a_validated_setting(home: Path) -> None:
    chat(home, stdin="I am allergic to peanuts.\nMy name is Ada.\nI live in Lisbon.\n")
    shown = tiermem(home, "config", "--agent", "a")
    assert shown.returncode == 0, shown.stderr
    assert "core_limit" in shown.stdout and "2000" in shown.stdout

    changed = tiermem(home, "config", "--agent", "a", "core_limit", "6")
    assert changed.returncode == 0, changed.stderr
    assert "core limit 2000 → 6 tokens; 2 facts moved to archival" in changed.stdout
    assert stored_core(home) == (6, 1)

    one = tiermem(home, "config", "--agent", "a", "core_limit", "--json")
    assert json.loads(one.stdout) == {"agent": "a", "settings": {"core_limit": 6}}


def test_a_changed_core_limit_unit_says_the_limit_it_leaves(home: Path) -> None:
    chat(home, stdin="I am allergic to peanuts.\nMy name is Ada.\nI live in Lisbon.\n")
    assert tiermem(home, "config", "--agent", "a", "core_limit", "3").returncode == 0
    # The number stays and counts the other unit: said outright, not left to be found.
    changed = tiermem(home, "config", "--agent", "a", "core_limit_unit", "facts")
    assert changed.returncode == 0, changed.stderr
    assert ("core_limit_unit tokens → facts (core limit now 3 facts); stored for agent a"
            in changed.stdout)


@pytest.mark.parametrize(("setting", "value", "named"), [
    ("core_limit", "lots", "core_limit"),
    ("core_limit", "0", "core_limit"),
    ("policy", "newest", "policy"),
    ("colour", "blue", "colour"),
    ("clock", "wall", "clock"),
])
def test_an_invalid_setting_is_a_usage_error_naming_the_field(
        home: Path, setting: str, value: str, named: str) -> None:
    chat(home, stdin="I am allergic to peanuts.\n")
    done = tiermem(home, "config", "--agent", "a", setting, value)
    assert done.returncode == 2
    assert named in done.stderr and "Traceback" not in done.stderr
    assert stored_core(home) == (2000, 1)  # nothing changed


#: A value of the wrong kind for each kind of setting, and what the refusal says of it.
WRONG_KINDS = {
    ("recall_dense", "no"): "recall_dense: must be true or false (got 'no')",
    ("recall_dense", "1"): "recall_dense: must be true or false (got 1)",
    ("core_limit", "1.5"): "core_limit: must be a whole number (got 1.5)",
    ("core_limit", "1e3"): "core_limit: must be a whole number (got 1000.0; write it as 1000)",
    ("promote_hits", "2.0"): "promote_hits: must be a whole number (got 2.0; write it as 2)",
    ("tau", "soon"): "tau: must be a number (got 'soon')",
    ("tau", "0"): "tau: must be greater than 0 (got 0)",
    ("core_limit_unit", "words"): "core_limit_unit: must be 'tokens' or 'facts' (got 'words')",
    ("fusion", "[1]"): 'fusion: must be an object of fusion weights, e.g. {"lexical": 0.6, '
                       '"dense": 0.4, "method": "convex", "rrf_k": 60, "depth": 100, '
                       '"prune_common": true} (got [1])',
    ("fusion", "RRF"): "fusion: must be an object of fusion weights (got 'RRF'); for the "
                       "method rrf, type '{\"method\": \"rrf\"}' (a weight it leaves out "
                       "takes its default)",
    ("fusion", '"convex"'): "fusion: must be an object of fusion weights (got 'convex'); for "
                            "the method convex, type '{\"method\": \"convex\"}' (a weight it "
                            "leaves out takes its default)",
    ("fusion", '{"prune_common": TRUE}'): """fusion: '{"prune_common": TRUE}' is not JSON, """
                                          "which writes true, false and null in lower case; "
                                          """type '{"prune_common": true}'""",
    ("fusion", '{"method": "rrf", "prune_common": True}'): (
        """fusion: '{"method": "rrf", "prune_common": True}' is not JSON, which writes true, """
        """false and null in lower case; type '{"method": "rrf", "prune_common": true}'"""),
    # An object JSON cannot read is told where and what is wrong, not that an object is due.
    ("fusion", '{"prune_common": true true}'): (
        """fusion: '{"prune_common": true true}' is not JSON: expecting ',' delimiter at """
        "character 23"),
    ("fusion", '{"lexical": 0.7,}'): (
        """fusion: '{"lexical": 0.7,}' is not JSON: expecting property name enclosed in """
        "double quotes at character 17"),
    ("fusion", "{'method': 'rrf'}"): (
        """fusion: "{'method': 'rrf'}" is not JSON: expecting property name enclosed in """
        "double quotes at character 2"),
    ("promote_hits", "[2"): "promote_hits: '[2' is not JSON: expecting ',' delimiter at "
                            "character 3",
    ("fusion", '{"weight": 1}'): "fusion.weight: is not a fusion weight; they are lexical, "
                                 "dense, method, rrf_k, depth, prune_common (got 1)",
}


def test_a_value_of_the_wrong_kind_is_refused_naming_what_the_setting_takes(
        home: Path) -> None:
    chat(home, stdin="I am allergic to peanuts.\n")
    before = tiermem(home, "config", "--agent", "a", "--json").stdout
    for (setting, value), said in WRONG_KINDS.items():
        done = tiermem(home, "config", "--agent", "a", setting, value)
        assert (done.returncode, done.stderr) == (2, f"tiermem: invalid memory config: "
                                                     f"{said}\n")
    assert tiermem(home, "config", "--agent", "a", "--json").stdout == before  # unchanged


def test_a_clock_change_is_refused_with_advice_for_the_command_line(home: Path) -> None:
    chat(home, stdin="I am allergic to peanuts.\n")
    done = tiermem(home, "config", "--agent", "a", "clock", "wall")
    assert done.returncode == 2
    assert done.stderr == (
        "tiermem: invalid memory config: clock: agent a's memory keeps time on the logical "
        "clock and cannot switch to 'wall' (its access times would lose their meaning); an "
        "agent keeps the clock its memory was created with, and nothing was changed\n")


def stored_fusion(home: Path) -> dict[str, object]:
    done = tiermem(home, "config", "--agent", "a", "fusion", "--json")
    assert done.returncode == 0, done.stderr
    fusion: dict[str, object] = json.loads(done.stdout)["settings"]["fusion"]
    return fusion


@pytest.mark.parametrize(("value", "named"), [
    ('{"depth": true}', "fusion.depth: must be a whole number (got True)"),
    ('{"lexical": false}', "fusion.lexical: must be a number (got False)"),
    ('{"prune_common": 1}', "fusion.prune_common: must be true or false (got 1)"),
    ('{"lexical": "0.5"}', "fusion.lexical: must be a number (got '0.5')"),
    ("null", "fusion needs a value, not null"),
    # JSON's null as Python writes it: told to type '{"depth": null}', which is refused too.
    ('{"depth": None}', "fusion.depth: must be a whole number (got None)"),
    ("None", "fusion needs a value, not null"),
])
def test_fusion_weights_are_as_strict_as_the_other_settings(
        home: Path, value: str, named: str) -> None:
    chat(home, stdin="I am allergic to peanuts.\n")
    before = stored_fusion(home)
    done = tiermem(home, "config", "--agent", "a", "fusion", value)
    assert done.returncode == 2
    assert named in done.stderr and "Traceback" not in done.stderr
    assert stored_fusion(home) == before


def test_a_changed_fusion_shows_as_json_and_an_unchanged_one_says_so(home: Path) -> None:
    chat(home, stdin="I am allergic to peanuts.\n")
    changed = tiermem(home, "config", "--agent", "a", "fusion",
                      '{"lexical": 0.7, "dense": 0.3}', "--json")
    assert changed.returncode == 0, changed.stderr
    report = json.loads(changed.stdout)
    assert (report["old"]["lexical"], report["new"]["lexical"]) == (0.6, 0.7)
    assert "FusionWeights(" not in changed.stdout + changed.stderr
    again = tiermem(home, "config", "--agent", "a", "fusion", '{"lexical": 0.7, "dense": 0.3}')
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("fusion unchanged: {")


def test_a_unit_change_under_a_limit_of_one_names_the_unit_singular() -> None:
    # It read "core_limit_unit tokens → facts (core limit now 1 facts)".
    from tiermem.agent.settings import SettingChange
    from tiermem.memory.config import MemoryConfig

    change = SettingChange("core_limit_unit", "tokens", "facts", 0)
    assert change.describe(MemoryConfig(core_limit=1, core_limit_unit="facts")) == (
        "core_limit_unit tokens → facts (core limit now 1 fact)")


def test_a_value_the_agent_already_has_is_told_unchanged_not_stored(home: Path) -> None:
    # It read "clock unchanged: logical; stored for agent a", as if it had been changed.
    chat(home, stdin="I am allergic to peanuts.\n")
    for setting, value in (("clock", "logical"), ("core_limit", "2000")):
        done = tiermem(home, "config", "--agent", "a", setting, value)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == (f"{setting} unchanged: {value} (agent a already has "
                                       f"it; nothing stored)")
    changed = tiermem(home, "config", "--agent", "a", "core_limit", "1500")
    assert changed.stdout.strip() == "core limit 2000 → 1500 tokens; stored for agent a"


def test_the_help_shows_where_the_core_limit_comes_from(home: Path) -> None:
    done = tiermem(home, "chat", "--help")
    text = " ".join(done.stdout.split())
    assert "default: the agent's stored value, 2000 tokens for a new agent" in text
    assert "this session only" in text


def test_an_agent_opens_with_the_embedder_it_was_built_with(home: Path) -> None:
    chat(home, stdin="I am allergic to peanuts.\n")  # built with --embedder hashing
    again = tiermem(home, "chat", "--agent", "a", stdin="/core\n")
    assert again.returncode == 0, again.stderr
    assert "allergic to peanuts" in again.stdout
    report = tiermem(home, "diagnostics", "--agent", "a", "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["core"]["facts"] == 1


def test_without_the_postgres_extra_the_embedder_choice_leaves_the_error_to_opening(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from tiermem.agent.place import AgentPlace
    from tiermem.agent.settings import session_embedder

    # As when psycopg is not installed: importing the PostgreSQL modules fails.
    monkeypatch.setitem(sys.modules, "tiermem.memory.store.postgres.connection", None)
    place = AgentPlace("a", tmp_path / "a", "postgresql://localhost/x")
    assert session_embedder(place, None) is None  # the default; opening says what to install


def test_a_smaller_core_limit_is_stored_with_its_evictions_or_not_at_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.memory.tiers.lifecycle import FactLifecycle

    home = tmp_path / "agent"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        for i in range(30):
            memory.add_fact(f"Host db-{i} runs PostgreSQL 15 in rack R{i}", "durable")
        held = memory.core.used

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # the process dies between the setting and the evictions

    monkeypatch.setattr(FactLifecycle, "make_room", killed)
    with pytest.raises(KeyboardInterrupt):
        HierarchicalMemory(home, embedder=HashingEmbedder(), core_limit=40)
    monkeypatch.undo()
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        # Neither stored: before, the limit of 40 was, over a core still of `held` tokens.
        assert (memory.config.core_limit, memory.core.used) == (2000, held)
    with HierarchicalMemory(home, embedder=HashingEmbedder(), core_limit=40) as memory:
        assert memory.core.used <= 40 == memory.stored_config().core_limit


def test_a_fusion_object_is_the_whole_setting_as_the_readme_says(home: Path) -> None:
    """A weight the object leaves out takes its default, not the stored one (README,
    "Settings"): the printed change shows both objects."""
    chat(home, stdin="I am allergic to peanuts.\n")
    assert tiermem(home, "config", "--agent", "a", "fusion", '{"lexical": 0.7}').returncode == 0
    assert stored_fusion(home)["lexical"] == 0.7
    done = tiermem(home, "config", "--agent", "a", "fusion", '{"method": "rrf"}')
    assert done.returncode == 0, done.stderr
    assert '"lexical": 0.7' in done.stdout and '"lexical": 0.6' in done.stdout
    assert (stored_fusion(home)["lexical"], stored_fusion(home)["method"]) == (0.6, "rrf")


def test_a_snapshot_of_a_session_with_its_own_core_limit_keeps_the_stored_one(
        home: Path, tmp_path: Path) -> None:
    """`--core-limit` holds for the session only, so a `/snapshot` taken in it restores
    the agent with the limit it keeps, not the session's."""
    chat(home, stdin="I am allergic to peanuts.\n")
    snapshot = tmp_path / "a.json"
    chat(home, "--core-limit", "6", stdin=f"/snapshot {snapshot}\n")
    assert json.loads(snapshot.read_text(encoding="utf-8"))["config"]["core_limit"] == 2000
    restored = tiermem(home, "restore", str(snapshot), "--agent", "b")
    assert restored.returncode == 0, restored.stderr
    shown = tiermem(home, "config", "--agent", "b", "core_limit", "--json")
    assert json.loads(shown.stdout)["settings"]["core_limit"] == 2000


def damage(home: Path, **values: str) -> dict[str, str]:
    """Store ``values`` as a hand edit of the database would (no version writes them);
    every stored meta value afterwards."""
    import sqlite3

    conn = sqlite3.connect(home / "agents" / "a" / "memory.sqlite3")
    conn.create_function("tiermem_needs_a_newer_version", 0, lambda: 0)
    with conn:
        conn.executemany("UPDATE meta SET value = ? WHERE key = ?",
                         [(value, key) for key, value in values.items()])
    meta = dict(conn.execute("SELECT key, value FROM meta"))
    conn.close()
    return meta


def test_a_stored_setting_that_cannot_be_read_is_replaced_by_giving_it(home: Path) -> None:
    # "fusion.depth: must be a whole number (got 50.0; write it as 50)", and giving it as 50
    # was refused with the same words: the change read the stored settings first. Neither
    # the chat's refusal nor another setting's said the value was the stored one, nor how
    # to replace it.
    chat(home, stdin="I am allergic to peanuts.\n")
    before = damage(home, fusion='{"lexical": 0.5, "dense": 0.5, "depth": 50.0}')
    said = ("fusion.depth: must be a whole number (got 50.0; write it as 50), as agent a's "
            "memory stores it (no version writes such a value); `tiermem config --agent a "
            "fusion VALUE` replaces it")
    refused = tiermem(home, "chat", "--agent", "a", stdin="hello\n")
    assert refused.returncode == 2 and said in refused.stderr
    other = tiermem(home, "config", "--agent", "a", "core_limit", "1500")
    assert other.returncode == 2 and said in other.stderr  # not this setting's
    still_bad = tiermem(home, "config", "--agent", "a", "fusion", '{"depth": 50.5}')
    assert still_bad.returncode == 2 and "(got 50.5)" in still_bad.stderr
    done = tiermem(home, "config", "--agent", "a", "fusion", '{"lexical": 0.5, "dense": 0.5, '
                   '"depth": 50}')
    assert done.returncode == 0, done.stderr
    assert "fusion (its stored value unreadable) → {" in done.stdout
    after = damage(home)
    assert json.loads(after.pop("fusion"))["depth"] == 50
    assert after == {k: v for k, v in before.items() if k != "fusion"}  # nothing else
    assert tiermem(home, "config", "--agent", "a", "core_limit", "1500").returncode == 0


def test_several_stored_settings_that_cannot_be_read_are_replaced_in_turn(
        home: Path) -> None:
    # Each change read the other's stored value and was refused: none could be replaced.
    chat(home, stdin="I am allergic to peanuts.\n")
    before = damage(home, fusion='{"depth": 50.0}', core_limit="20.0", tau="abc")
    first = tiermem(home, "config", "--agent", "a", "tau", "30")
    assert first.returncode == 2
    assert "tau (its stored value unreadable) → 30; stored for agent a" in first.stdout
    assert ("`tiermem config --agent a core_limit VALUE` and `tiermem config --agent a fusion "
            "VALUE` replace them") in first.stderr
    assert damage(home) == {**before, "tau": "30.0"}  # that one alone
    assert tiermem(home, "config", "--agent", "a", "core_limit", "20").returncode == 2
    done = tiermem(home, "config", "--agent", "a", "fusion", '{"depth": 50}')
    assert done.returncode == 0, done.stderr
    assert stored_fusion(home)["depth"] == 50
    assert chat(home, stdin="hello\n") == ""


def test_a_keyword_value_is_taken_in_any_case_and_refused_as_typed(home: Path) -> None:
    # "LRU", "TRUE", "Facts" and "LOGICAL" were refused: "unknown eviction policy 'LRU'",
    # "must be true or false (got 'TRUE')".
    from tiermem.agent.settings import parse_value

    assert [parse_value("policy", "LRU"), parse_value("recall_dense", "TRUE"),
            parse_value("recall_dense", "False"), parse_value("core_limit_unit", "Facts"),
            parse_value("clock", "LOGICAL")] == ["lru", True, False, "facts", "logical"]
    assert [parse_value("policy", "BOGUS"), parse_value("recall_dense", "YES")] == [
        "BOGUS", "YES"]
    chat(home, stdin="I am allergic to peanuts.\n")
    done = tiermem(home, "config", "--agent", "a", "policy", "LRU")
    assert done.stdout.strip() == "policy freq_recency_durable → lru; stored for agent a"
    done = tiermem(home, "config", "--agent", "a", "policy", "BOGUS")
    assert done.returncode == 2 and "unknown eviction policy 'BOGUS'" in done.stderr


def test_a_fusion_method_is_taken_in_any_case_and_refused_as_typed() -> None:
    # '{"method": "RRF"}' was refused: "fusion.method: must be 'convex' or 'rrf' (got 'RRF')".
    from tiermem.agent.settings import parse_value
    from tiermem.memory.config import MemoryConfig

    assert parse_value("fusion", '{"method": "RRF", "lexical": 0.7}') == {
        "method": "rrf", "lexical": 0.7}
    assert MemoryConfig.parse({"fusion": parse_value("fusion", '{"method":"Convex"}')}
                              ).fusion.method == "convex"
    assert parse_value("fusion", '{"method": "BORDA"}') == {"method": "BORDA"}
