"""A fuzz class's seed gives the same examples and counts whatever ran before it.

Hypothesis draws some of its values from literals it finds in the local modules
loaded so far, and the other fault classes load modules of their own. Each run
here is a fresh process, so what it has loaded is known: the class alone, or
after the modules of every other class.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

#: The modules the other classes load when the whole harness runs.
OTHER_CLASSES = ("tiermem.bench.fault_kill", "tiermem.bench.fault_kill_pg",
                 "tiermem.bench.fault_snapshot_file", "tiermem.bench.fault_disk",
                 "tiermem.bench.fault_readonly", "tiermem.bench.fault_files",
                 "tiermem.bench.fault_cli", "tiermem.bench.fault_provider", "tiermem.cli")

RUN = """
import importlib, json, sys
from tiermem.bench.fault_fuzz import fuzz_dispatch, run_examples, tool_calls
from tiermem.bench.fault_snapshot import mutations, source_snapshot

for module in sys.argv[1:]:
    importlib.import_module(module)

def drawn(strategy):
    seen = []
    run_examples(strategy, lambda value: seen.append(repr(value)), 0, 30)
    return seen

row = fuzz_dispatch(0, True, examples=60)
print(json.dumps({"tool calls": drawn(tool_calls()),
                  "snapshot edits": drawn(mutations(source_snapshot())),
                  "counts": [row.trials, row.clear_errors, row.crashes]}))
"""


def _run(*modules: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", RUN, *modules], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout))


@pytest.fixture(scope="module")
def alone_and_after_others() -> tuple[dict[str, Any], dict[str, Any]]:
    return _run(), _run(*OTHER_CLASSES)


@pytest.mark.parametrize("drawing", ["tool calls", "snapshot edits"])
def test_the_same_seed_draws_the_same_examples_after_the_other_classes_load(
        drawing: str, alone_and_after_others: tuple[dict[str, Any], dict[str, Any]]) -> None:
    alone, after_others = alone_and_after_others
    assert len(alone[drawing]) == 30
    assert after_others[drawing] == alone[drawing]


def test_the_tool_fuzz_counts_the_same_alone_and_after_the_other_classes_load(
        alone_and_after_others: tuple[dict[str, Any], dict[str, Any]]) -> None:
    alone, after_others = alone_and_after_others
    assert alone["counts"][0] == 60
    assert after_others["counts"] == alone["counts"]
