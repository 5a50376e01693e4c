"""A property test draws the same examples whatever modules were loaded before it.

Hypothesis draws some values from literals it finds in the local modules loaded so
far, so a derandomized test drew other examples after other test files had run.
Each run here is a fresh process running tests/drawn_examples_probe.py, so what it
has loaded is known: nothing more, or the CLI and the fault harness first.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tiermem.bench import fixed_examples
from tiermem.bench.fault_fuzz import run_examples

TESTS = Path(__file__).resolve().parent
PROBE = TESTS / "drawn_examples_probe.py"

#: Modules with many literals of their own, none of which the probe loads.
OTHERS = ("tiermem.cli", "tiermem.bench.faults")

RUN = """
import importlib, sys
import pytest

if sys.argv[1] == "renamed":
    from hypothesis.internal.conjecture import providers
    providers._gathered_local_constants = providers._get_local_constants
    del providers._get_local_constants
for module in sys.argv[3:]:
    importlib.import_module(module)
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", sys.argv[2]]))
"""


def _run_probe(tmp_path: Path, *modules: str, lookup: str = "present") -> tuple[
        subprocess.CompletedProcess[str], list[str]]:
    drawn = tmp_path / f"drawn-{len(list(tmp_path.iterdir()))}.txt"
    done = subprocess.run([sys.executable, "-c", RUN, lookup, str(PROBE), *modules],
                          capture_output=True, text=True, timeout=600, cwd=TESTS.parent,
                          env={**os.environ, "DRAWN_EXAMPLES": str(drawn),
                               "HYPOTHESIS_PROFILE": "load-independent"})
    return done, drawn.read_text(encoding="utf-8").splitlines() if drawn.exists() else []


def test_a_property_test_draws_the_same_examples_after_other_modules_load(
        tmp_path: Path) -> None:
    alone, drawn_alone = _run_probe(tmp_path)
    after_others, drawn_after_others = _run_probe(tmp_path, *OTHERS)
    assert alone.returncode == 0, alone.stdout[-2000:] + alone.stderr[-2000:]
    assert after_others.returncode == 0, after_others.stdout[-2000:]
    assert len(drawn_alone) == 100
    assert drawn_after_others == drawn_alone


def test_the_suite_stops_at_once_on_a_hypothesis_without_the_lookup(tmp_path: Path) -> None:
    import hypothesis

    done, drawn = _run_probe(tmp_path, lookup="renamed")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR
    assert f"Hypothesis {hypothesis.__version__} has no " in done.stderr
    assert "_get_local_constants" in done.stderr
    assert drawn == []


def test_the_fault_harness_stops_on_a_hypothesis_without_the_lookup() -> None:
    import hypothesis
    from hypothesis import strategies as st
    from hypothesis.internal.conjecture import providers

    lookup = providers._get_local_constants
    del providers._get_local_constants
    drawn: list[int] = []
    try:
        with pytest.raises(fixed_examples.UnknownHypothesisError,
                           match=f"Hypothesis {hypothesis.__version__} has no "):
            run_examples(st.integers(), drawn.append, 0, 5)
    finally:
        providers._get_local_constants = lookup
    assert drawn == []


def test_the_harness_gives_back_the_lookup_it_found() -> None:
    from hypothesis import strategies as st
    from hypothesis.internal.conjecture import providers

    lookup = providers._get_local_constants
    drawn: list[int] = []
    run_examples(st.integers(), drawn.append, 0, 5)
    assert len(drawn) == 5
    assert providers._get_local_constants is lookup
