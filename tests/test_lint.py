"""The code stays ruff- and mypy-clean (configured in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> list[str]:
    exe = Path(sys.executable).with_name(name)
    if exe.exists():
        return [str(exe)]
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed; install the test extras: pip install -e '.[test]'")
    return [found]


def test_ruff_clean() -> None:
    run = subprocess.run([*_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_clean() -> None:
    _tool("mypy")
    # The package is checked under its installed name, tiermem.* (see .ci/typecheck.py).
    run = subprocess.run([sys.executable, str(ROOT / ".ci" / "typecheck.py")], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues found" in run.stdout, run.stdout + run.stderr
