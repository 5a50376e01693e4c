"""The README's code runs: every ```python block of the README runs as written and does what
its text says, every ```yaml block of the README and the skill card loads as the policy file
it shows, with the settings it shows, and the first screen installs what it names."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest
from readme_docs import DOCS, ROOT, Block, blocks


def _nothing(request: pytest.FixtureRequest, tmp: Path) -> dict[str, Any]:
    return {}


def _postgres_setup(request: pytest.FixtureRequest, tmp: Path) -> dict[str, Any]:
    from tiermem import HierarchicalMemory

    # The block's "postgresql://…" becomes a database of the suite's own local server.
    return {"HierarchicalMemory": HierarchicalMemory,
            "__dsn__": request.getfixturevalue("postgres_dsn")}


def _forget_setup(request: pytest.FixtureRequest, tmp: Path) -> dict[str, Any]:
    from tiermem import HierarchicalMemory
    from tiermem.agent.judge import ModelJudge
    from tiermem.agent.openai_client import OpenAIClient

    # The block's `memory` holds the card number it forgets, and its LLM mode asks a judge
    # on the suite's loopback server, which answers that no candidate is targeted.
    server = request.getfixturevalue("server")
    server.enqueue_reply('{"ids": []}')
    client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
    memory = HierarchicalMemory(tmp / "agent", judge=ModelJudge(client))
    memory.process_interaction("my card number is 4111 1111", "Noted.")
    return {"memory": memory}


#: What the prose before each ```python block of the README has set up, by the heading the
#: block is under: a block under another heading runs with nothing defined.
SETUPS = {"Storage backends: SQLite or PostgreSQL": _postgres_setup,
          "Forgetting": _forget_setup}


def _library_did(namespace: dict[str, Any], printed: str, tmp: Path) -> None:
    from tiermem import HierarchicalMemory

    # The question finds the fact in core first, and the memory is kept under ~/.tiermem.
    assert printed.splitlines()[0] == "core User is allergic to peanuts", printed
    with HierarchicalMemory(tmp / "user" / ".tiermem" / "agents" / "demo") as reopened:
        assert ("User is allergic to peanuts", "durable") in [
            (f.text, f.durability) for f in reopened.core]


def _postgres_did(namespace: dict[str, Any], printed: str, tmp: Path) -> None:
    from tiermem.memory.store.postgres.connection import stored_agents

    assert stored_agents(namespace["__dsn__"]) == ["alice"]  # "a new name creates the agent"


def _forget_did(namespace: dict[str, Any], printed: str, tmp: Path) -> None:
    # The exact request forgot the message that held the card number and the fact learned
    # from it, so no read finds the number; each of the three requests is in the audit.
    result, memory = namespace["result"], namespace["memory"]
    assert result.outcome == "matched"
    assert len(result.forgotten.facts) == len(result.forgotten.messages) == 1
    assert not [h.text for h in memory.query("card number 4111 1111") if "4111" in h.text]
    assert [r.mode for r in memory.forget_requests()] == ["exact", "top_k_llm", "exact"]


#: What each block did that its README text says, by heading, checked once it has run.
CHECKS = {"Library": _library_did, "Storage backends: SQLite or PostgreSQL": _postgres_did,
          "Forgetting": _forget_did}
PYTHON = [block for block in blocks("README.md") if block.lang == "python"]


def test_every_python_setup_and_check_has_its_block() -> None:
    assert set(SETUPS) | set(CHECKS) <= {block.heading for block in PYTHON}
    assert {block.heading for block in PYTHON} <= set(CHECKS)  # every block is checked


@pytest.mark.parametrize("block", PYTHON, ids=str)
def test_every_python_block_runs(block: Block, request: pytest.FixtureRequest, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem import HierarchicalMemory

    # `~/.tiermem/...` and relative paths land in the test's own directory.
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.chdir(tmp_path)
    setup = SETUPS.get(block.heading, _nothing)
    namespace: dict[str, Any] = {"__name__": "readme"} | setup(request, tmp_path)
    code = block.text
    if "__dsn__" in namespace:
        code = code.replace('"postgresql://…"', repr(namespace["__dsn__"]))
    try:
        exec(compile(code, str(block), "exec"), namespace)
        CHECKS[block.heading](namespace, capsys.readouterr().out, tmp_path)
    finally:
        for value in namespace.values():
            if isinstance(value, HierarchicalMemory):
                value.close()


def _policy_file(tmp: Path, text: str) -> Path:
    path = tmp / "policy.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("block", [b for d in DOCS for b in blocks(d) if b.lang == "yaml"],
                         ids=str)
def test_every_yaml_block_loads_as_a_policy_file(block: Block, tmp_path: Path) -> None:
    import yaml

    from tiermem.memory.ops.forget_config import forget_config_from_file
    from tiermem.memory.privacy.config import load_policy

    path = _policy_file(tmp_path, block.text)
    policy = load_policy(path)
    forget = forget_config_from_file(path)
    # Every setting the block shows is the one loaded, not a default in its place.
    given = yaml.safe_load(block.text)
    assert set(given) <= {"forget", "rules", "retention", "recall"}, block
    _assert_holds(forget, given.get("forget", {}), "forget")
    for section in ("rules", "retention", "recall"):
        _assert_holds(getattr(policy, section), given.get(section, {}), section)


def _assert_holds(loaded: Any, given: Any, where: str) -> None:
    """Each value ``given`` (the YAML's, nested) is the one ``loaded`` has at its place."""
    if isinstance(given, dict):
        for key, value in given.items():
            inner = loaded[key] if isinstance(loaded, dict) else getattr(loaded, key)
            _assert_holds(inner, value, f"{where}.{key}")
    elif isinstance(given, list):
        assert len(loaded) == len(given), where
        for index, (inner, value) in enumerate(zip(loaded, given, strict=True)):
            _assert_holds(inner, value, f"{where}[{index}]")
    else:
        assert loaded == given, where


def test_the_first_screen_installs_what_it_names() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    version = re.search(r"\(Python (3\.\d+)\+\)", readme)
    assert version is not None and project["requires-python"] == f">={version.group(1)}"
    assert project["scripts"]["tiermem"] == "tiermem.cli:main"
    setup = next(block for block in blocks("README.md") if block.lang == "bash")
    assert "python -m pip install . && tiermem chat --offline" in setup.text
    named = {extra for doc in DOCS
             for extra in re.findall(r"install -e '\.\[(\w+)\]'", (ROOT / doc).read_text())}
    assert "test" in named and named <= set(project["optional-dependencies"])


def test_the_cards_privacy_code_says_where_each_name_it_uses_comes_from() -> None:
    """`tiermem` exports neither `load_policy` nor `ModelJudge`: the card's snippet names the
    module of each, and importing them so works."""
    card = (ROOT / "SKILL.md").read_text(encoding="utf-8")
    section = card.partition("### Privacy policies")[2].partition("\n### ")[0]
    snippet = re.search(r"`(HierarchicalMemory\(\.\.\., privacy=.*?)`", section, re.DOTALL)
    assert snippet is not None
    imports = " ".join(re.findall(r"`(from tiermem[\w.]* import\s+\w+)`", section))
    for name in ("load_policy", "ModelJudge", "OpenAIClient"):
        found = re.search(rf"from (tiermem[\w.]*) import\s+{name}\b", imports)
        assert found is not None, f"SKILL.md's Privacy section names no import of {name}"
        assert callable(getattr(importlib.import_module(found.group(1)), name))
