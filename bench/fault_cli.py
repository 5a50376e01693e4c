"""The command line under faults: run ``cli.main`` in-process, and fuzz its arguments.

``run_cli`` runs one command with its output captured and standard input
empty, and reports its exit code or the exception that escaped it. The fuzz
draws argument lists from the real commands and options mixed with hostile
text; every one must end in exit code 0, 1 or 2 without a traceback.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from tiermem.bench.fault_result import FaultResult, describe


@dataclass
class CliRun:
    code: int | None
    stdout: str
    stderr: str
    exception: BaseException | None = None


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_cli(argv: Sequence[str], env: dict[str, str]) -> CliRun:
    """``tiermem ARGV`` in this process, with ``env`` set and nothing on standard input."""
    import tiermem.cli as cli

    out, err = io.StringIO(), io.StringIO()
    with _environment(env), mock.patch.object(sys, "stdin", io.TextIOWrapper(io.BytesIO(b""))), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: int | None = cli.main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception as exc:
            return CliRun(None, out.getvalue(), err.getvalue(), exc)
    return CliRun(code, out.getvalue(), err.getvalue())


def judge_cli(run: CliRun, what: str, result: FaultResult) -> None:
    """Exit 0 passes, 1 or 2 with a message is a clear error, anything else a crash."""
    if run.exception is not None:
        result.crash(f"{what}: raised {describe(run.exception)}")
    elif "Traceback (most recent call last)" in run.stderr + run.stdout:
        result.crash(f"{what}: printed a traceback")
    elif run.code in (1, 2):
        result.clear(f"{what}: exit {run.code}: {run.stderr.strip()[-160:]}")
    elif run.code != 0:
        result.crash(f"{what}: exit code {run.code}")


# -- fuzzing -------------------------------------------------------------------------------
class _WorkloadReached(Exception):
    """Raised in place of a long workload: the arguments were accepted."""


#: Commands whose work takes minutes (or is this harness) stop where the work would start;
#: what is fuzzed is how arguments are parsed and checked, up to that point.
_WORKLOADS = ("tiermem.bench.battery.run_battery", "tiermem.bench.perf.main",
              "tiermem.bench.faults.run_faults", "tiermem.scenarios.runner.run_scenario",
              "tiermem.evals.runner.run_locomo")
#: Where the commands find the default embedder, which would load the local model.
_EMBEDDER_LOOKUPS = ("tiermem.memory.embed.embeddings.default_embedder",
                     "tiermem.memory.session.default_embedder",
                     "tiermem.memory.ops.reindex.default_embedder")
_OPTIONS = ("--agent", "--model", "--base-url", "--offline", "--core-limit", "--embedder",
            "--scenario", "--format", "--out", "--name", "--list", "--json", "--seed", "--quick",
            "--only", "--policy", "--perf", "--sizes", "--recall-dense", "--faults", "--data",
            "--k", "--config", "--list-configs", "--resume", "--limit", "--conversations",
            "--mode", "--judge", "--help", "-h")
_VALUES = ("local", "hashing", "text", "json", "html", "0", "-1", "1", "2", "99999999999999999999",
           "nan", "1e309", "lru", "fifo", "bogus", "core_limit,timing", "incident",
           "default", "a b", "", " ", "\udcff", "é", "x" * 300, "report.json", "out.html",
           "..", "locomo", "qa", "retrieval", "1,5", "26,30", "http://127.0.0.1:9/v1")


def _strategy() -> Any:
    from hypothesis import strategies as st

    from tiermem.cli import COMMANDS

    text = st.text(alphabet=st.characters(exclude_categories=["Cs"],
                                          exclude_characters="\x00/~"), max_size=20)
    token = st.one_of(st.sampled_from(_OPTIONS), st.sampled_from(_OPTIONS),
                      st.sampled_from(_VALUES), st.sampled_from(_VALUES), text,
                      st.integers(-10, 10**12).map(str))
    # Mostly real commands, so that most arguments reach the command's own checks.
    commands = st.sampled_from((*COMMANDS, "eval locomo", "eval locomo"))
    head = st.integers(0, 19).flatmap(lambda n: text if n == 0 else st.sampled_from(
        ("help", "--help")) if n == 1 else commands)
    return st.tuples(head, st.lists(token, max_size=6)).map(
        lambda parts: [*parts[0].split(" "), *parts[1]])


def fuzz_cli(seed: int, quick: bool, examples: int | None = None) -> FaultResult:
    """``tiermem`` with fuzzed arguments: exit 0, 1 or 2, never a traceback."""
    from tiermem.bench.fault_fuzz import run_examples

    result = FaultResult("fuzz: CLI arguments", "fuzz")
    with tempfile.TemporaryDirectory(prefix="tiermem-cli-") as tmp, \
            contextlib.ExitStack() as stack:
        for target in _WORKLOADS:
            stack.enter_context(mock.patch(target, side_effect=_WorkloadReached))
        for target in _EMBEDDER_LOOKUPS:
            stack.enter_context(mock.patch(target, _hashing_embedder))
        cwd = os.getcwd()
        os.chdir(tmp)  # --out and --json paths land here
        stack.callback(os.chdir, cwd)
        env = {"TIERMEM_HOME": str(Path(tmp) / "home"), "TIERMEM_MODEL": "",
               "OPENAI_BASE_URL": "", "OPENAI_API_KEY": ""}

        def one(argv: list[str]) -> None:
            result.trials += 1
            run = run_cli(argv, env)
            if not isinstance(run.exception, _WorkloadReached):
                judge_cli(run, f"tiermem {' '.join(argv)[:80]!r}", result)

        run_examples(_strategy(), one, seed, examples or (30 if quick else 200))
    return result


def _hashing_embedder() -> Any:
    from tiermem.memory import HashingEmbedder

    return HashingEmbedder()
