"""The README's code runs: every ```python block of the README runs as written, every
```yaml block of the README and the skill card loads as the policy file it shows, and the
first screen installs what it names."""

from __future__ import annotations

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
PYTHON = [block for block in blocks("README.md") if block.lang == "python"]


def test_every_python_setup_has_its_block() -> None:
    assert set(SETUPS) <= {block.heading for block in PYTHON}


@pytest.mark.parametrize("block", PYTHON, ids=str)
def test_every_python_block_runs(block: Block, request: pytest.FixtureRequest, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
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
    from tiermem.memory.ops.forget_config import forget_config_from_file
    from tiermem.memory.privacy.config import load_policy

    path = _policy_file(tmp_path, block.text)
    load_policy(path)
    forget_config_from_file(path)


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
