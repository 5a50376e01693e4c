"""Shared fixtures. Every test, and every process a test starts, runs with the network blocked
outside loopback (tests/network_guard.py)."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import network_guard
import pytest
from hypothesis import HealthCheck, settings

# Hypothesis judges time twice by default: a per-example deadline and a health
# check that fails when generating data is slow. Both fail on a loaded machine,
# so every property test runs without them. The examples are the same on every
# run, so that a suite that passed passes again on a fresh clone; to look for new
# counterexamples, run with HYPOTHESIS_PROFILE=explore (new random examples each run).
# The same examples also means whatever test files ran before: see
# _examples_independent_of_loaded_modules.
settings.register_profile(
    "load-independent", deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
settings.register_profile(
    "explore", parent=settings.get_profile("load-independent"), derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "load-independent"))

ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    _stop_cleanly_on_sigterm()
    _let_ctrl_c_through()
    _block_network_in_children()
    # The tests and the processes they start import `tiermem`: it must be this
    # checkout, not another one installed in the same environment.
    spec = importlib.util.find_spec("tiermem")
    found = Path(spec.origin).resolve().parent if spec is not None and spec.origin else None
    if found != ROOT:
        loaded = f"`import tiermem` loads {found}" if found else "no tiermem package is installed"
        raise pytest.UsageError(
            f"these tests check the checkout at {ROOT}, but {loaded}; install this checkout "
            f"in a virtualenv of its own: python -m pip install -e '.[test]'")
    _check_hypothesis_constants_can_be_replaced()


def _check_hypothesis_constants_can_be_replaced() -> None:
    """Stop before the first test, once, rather than failing every property test."""
    from tiermem.bench.fixed_examples import UnknownHypothesisError, without_local_constants

    try:
        with without_local_constants():
            pass
    except UnknownHypothesisError as exc:
        raise pytest.UsageError(str(exc)) from None


@pytest.fixture(autouse=True)
def _examples_independent_of_loaded_modules() -> Iterator[None]:
    # Hypothesis also draws literals from the local modules loaded so far, so with the
    # same seed a property test drew other examples after other test files (or a
    # source edit) had loaded other literals. The explore profile keeps them: there
    # they only add to the random examples it is meant to find.
    if not settings.default.derandomize:
        yield
        return
    from tiermem.bench.fixed_examples import without_local_constants

    with without_local_constants():
        yield


def _stop_cleanly_on_sigterm() -> None:
    """End the run on SIGTERM (a CI timeout, ``kill``) as on Ctrl-C, so the fixtures'
    teardown runs: Python's default ends at once, and a PostgreSQL server the session
    started (tests/postgres_fixtures.py) then went on running. A process forked from the
    run still dies of the signal."""
    session = os.getpid()

    def interrupt(signum: int, frame: Any) -> None:
        if os.getpid() != session:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise KeyboardInterrupt(f"stopped by signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)


def _let_ctrl_c_through() -> None:
    """Give SIGINT back its KeyboardInterrupt when the run started with it ignored, as a
    shell without job control starts a background command (`bash .ci/run &`): the Ctrl-C
    tests send real SIGINTs, to this process and to the chats it starts, which inherit an
    ignored signal but not a handler."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _block_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(socket.socket, "connect", network_guard.guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", network_guard.guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", network_guard.guarded_getaddrinfo)
    yield


_real_popen_init = subprocess.Popen.__init__


def _guarded_popen_init(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
    if kwargs.get("env") is not None:
        kwargs["env"] = network_guard.guarded_env(kwargs["env"])
    _real_popen_init(self, *args, **kwargs)


def _block_network_in_children() -> None:
    """Every Python process the run starts blocks the network as this one does (see
    tests/network_guard.py): the run's environment, which a child inherits, and every
    ``env=`` a test gives ``subprocess`` put the guard's ``sitecustomize`` first on
    ``PYTHONPATH``. (A test that calls ``os.execve`` passes its environment through
    ``network_guard.guarded_env`` itself.)"""
    os.environ.update(network_guard.guarded_env(os.environ))
    subprocess.Popen.__init__ = _guarded_popen_init  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # A proxy from the developer's environment would swallow loopback requests.
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture
def server() -> Iterator[Any]:
    """A loopback OpenAI-compatible server (tests/fake_openai.py) for the test."""
    from fake_openai import FakeOpenAIServer

    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def sleeps() -> list[float]:
    """Where an LLM client given ``sleep=sleeps.append`` records each backoff, unslept."""
    return []


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "tiermem-home"
    monkeypatch.setenv("TIERMEM_HOME", str(home))
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TIERMEM_MODEL", "TIERMEM_CONTEXT_WINDOW",
                "TIERMEM_TIMEOUT", "TIERMEM_MAX_TOKENS", "TIERMEM_STORE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return home


@pytest.fixture(autouse=True)
def _graphs_built_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    # An HNSW graph is built on a thread of its own; tests build it in the search that
    # starts it, so what answers a search does not depend on scheduling. The thread is
    # tested on its own (tests/test_graph_build.py).
    from tiermem.memory.store.sqlite.graph import GraphBuild
    from tiermem.memory.store.sqlite.vectors import FaissIndex

    monkeypatch.setattr(FaissIndex, "start_graph_build", staticmethod(GraphBuild.run))


@pytest.fixture(autouse=True)
def _forget_server_facts() -> Iterator[None]:
    # Loopback ports are reused between tests: what one fake server said about its
    # window must not be remembered for the next one on the same port.
    from tiermem.agent.server_facts import clear_cache

    clear_cache()
    yield
    clear_cache()


# PostgreSQL fixtures (a session-wide local server, a database per test).
from postgres_fixtures import postgres_dsn, postgres_server  # noqa: E402, F401
