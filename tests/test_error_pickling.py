"""Every tiermem error crosses a process boundary whole: a worker process (multiprocessing,
``ProcessPoolExecutor``, Celery) pickles what it raised back to its parent, and unpickling
rebuilds an exception by calling its class with ``args`` unless the class says otherwise.
A class whose constructor takes more than the message would fail there (a TypeError in
the parent hiding the real error) or lose its attributes."""

from __future__ import annotations

import concurrent.futures
import importlib
import os
import pickle
import pkgutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import tiermem
from tiermem.memory.errors import StoreLockedError, TiermemError
from tiermem.memory.store.sqlite.writer_lock import WriterLock

#: Modules that run a program when imported rather than define anything.
_SCRIPTS = {"tiermem.__main__", "tiermem.setup"}
#: The packages of optional extras (``[postgres]``, ``[bench]``); a module needing one that
#: is not installed defines no class these tests could check.
_EXTRAS = {"psycopg", "pgvector", "pgserver", "chromadb"}

Sample = Callable[[type[Any]], BaseException]

#: One or more instances of every TiermemError subclass, by module and name, each built
#: as the code raising it builds it (positional and keyword arguments alike).
SAMPLES: dict[str, list[Sample]] = {
    "tiermem.memory.error_base.TiermemError": [lambda c: c("something failed")],
    "tiermem.memory.error_base.InvalidInputError": [lambda c: c("fact text is empty")],
    "tiermem.memory.errors.JudgeMissingError": [lambda c: c("top_k_llm")],
    "tiermem.memory.errors.ForgetRequestTooLongError": [lambda c: c(12_000, "top_k_llm", 10_000)],
    "tiermem.memory.errors.ConnectionLostError": [
        lambda c: c("lost the connection to PostgreSQL for agent 'a'", "`tiermem pg status`")],
    "tiermem.memory.schema_errors.UnfinishedCopyError": [lambda c: c("/h/agents/a", "/h/src")],
    "tiermem.memory.schema_errors.UnfinishedMigrationError": [lambda c: c("/h/agents/a", "/h/src")],
    "tiermem.memory.schema_errors.UnfinishedRestoreError": [
        lambda c: c("/h/agents/a", "a snapshot"), lambda c: c("pg", "a snapshot", True)],
    "tiermem.memory.error_base.MemoryLimitError": [lambda c: c("the fact does not fit in core")],
    "tiermem.memory.error_base.StoreError": [lambda c: c("cannot create the agent home /h")],
    "tiermem.memory.errors.StoreLockedError": [
        lambda c: c("/h/agents/ada", 4242),
        lambda c: c("/h/agents/ada", None, exited_pid=4243),
        lambda c: c("/h/agents/ada", None),
        lambda c: c("/h/agents/ada", 4242, this_process=True),
    ],
    "tiermem.memory.errors.WriterLockError": [
        lambda c: c("/h/agents/ada/writer.lock", "Read-only file system")],
    "tiermem.memory.errors.EmbedderMismatchError": [
        lambda c: c("minilm-l6-v2", 384, "hashing-256", 256)],
    "tiermem.memory.errors.EmbedderOutputError": [
        lambda c: c("the embedder 'x' (dim 4) returned values that are not finite numbers")],
    "tiermem.memory.errors.ReindexIncompleteError": [lambda c: c("minilm-l6-v2", 40, 120)],
    "tiermem.memory.schema_errors.OlderSchemaError": [
        lambda c: c("agent home /h/agents/ada", 7, 9)],
    "tiermem.memory.schema_errors.UnfinishedStoreError": [
        lambda c: c("agent home /h/agents/ada", 3)],
    "tiermem.memory.schema_errors.EmptyStoreFileError": [
        lambda c: c("/h/agents/ada/memory.sqlite3"), lambda c: c("/h/a/memory.sqlite3", 0)],
    "tiermem.memory.schema_errors.NewerSchemaError": [
        lambda c: c("agent home /h/agents/ada", 12, 9)],
    "tiermem.memory.errors.StoreBusyError": [lambda c: c("the database is locked")],
    "tiermem.memory.errors.StoreClosedError": [lambda c: c("the memory was closed")],
    "tiermem.memory.errors.StoreUnreachableError": [
        lambda c: c("cannot connect to PostgreSQL at postgresql://db/memories")],
    "tiermem.memory.errors.StoreCorruptError": [lambda c: c("the database is damaged")],
    "tiermem.memory.errors.ReadOnlyError": [lambda c: c("the memory is open read-only")],
    "tiermem.memory.errors.StoreFullError": [lambda c: c("the disk is full")],
    "tiermem.memory.errors.InvalidConfigError": [
        lambda c: c("core_limit must be positive", ("core_limit",)),
        lambda c: c("the policy file is not YAML"),
    ],
    "tiermem.memory.errors.ClockChangeError": [lambda c: c("logical", "wall")],
    "tiermem.memory.errors.StoredConfigError": [
        lambda c: c("invalid memory config: tau: must be a number", ("tau",), ("tau",))],
    "tiermem.memory.errors.TargetHoldsMemoryError": [
        lambda c: c("agent ada in postgresql://db/app", ("facts", "passages"))],
    "tiermem.memory.errors.SnapshotError": [
        lambda c: c("facts[0].text is missing", ("facts[0].text", "facts[1].id"))],
    "tiermem.memory.restore_errors.RestoreTargetHoldsMemoryError": [
        lambda c: c("/home/ada/.tiermem/agents/a; b", ("facts",), "an empty directory"),
        lambda c: c("agent ada in postgresql://db/app"),
    ],
    "tiermem.memory.errors.RetentionDroppedError": [
        lambda c: c("fact", "health", "no-diagnoses", "rules"),
        lambda c: c("message", "finance", None, "judge"),
    ],
    "tiermem.memory.output_file.OutputPathError": [
        lambda c: c(Path("/h/report.json"), "it is a directory; give a file name")],
    "tiermem.memory.text.tokenizer.TokenizerDataError": [lambda c: c("vocabulary missing")],
    "tiermem.memory.embed.minilm_files.ModelUnavailableError": [lambda c: c("model missing")],
    "tiermem.memory.embed.openai_embeddings.EmbeddingServiceError": [
        lambda c: c("the embedding endpoint refused the request")],
    "tiermem.memory.store.postgres.connection.AgentLockedError": [
        lambda c: c("agent ada in postgresql://db/app", "app-1", 4242,
                    "2026-01-02 03:04:05 UTC"),
        lambda c: c("agent ada in postgresql://db/app", "app-1", 4242, None),
        lambda c: c("agent ada in postgresql://db/app", None, None, None),
        lambda c: c("agent ada in postgresql://db/app", "app-1", 4242, None,
                    this_process=True),
    ],
    "tiermem.memory.store.references.CounterBehindRowsError": [
        lambda c: c("this memory's counter 'tick' holds 0, below what its rows hold (2), "
                    "so it cannot move on to 1: run `tiermem upgrade --home /h`")],
    "tiermem.memory.store.sqlite.errors.UnwritableMemoryError": [
        lambda c: c("/h/agents/ada", "attempt to write a readonly database"),
        lambda c: c("/h/agents/ada", "attempt to write a readonly database",
                    ("memory.sqlite3-shm",))],
    "tiermem.memory.store.postgres.local_server.LocalServerError": [
        lambda c: c("the local server did not start")],
    "tiermem.agent.errors.ProviderError": [
        lambda c: c("rate limited", kind="rate_limit", status_code=429, attempts=3),
        lambda c: c("too long", kind="context_exceeded", retryable=False,
                    context_window=8192, hint="use a larger model"),
        lambda c: c("still loading", kind="server", retryable=True, retry_wait=10.0),
        lambda c: c("the runner died", kind="server", retryable=False, hint="free memory",
                    may_pass=True),
    ],
    "tiermem.agent.errors.LLMConfigError": [lambda c: c("no API key")],
    "tiermem.agent.slash_commands.ForgetFailedError": [
        lambda c: c("nothing forgotten (failed: the judge failed: ProviderError)")],
    "tiermem.agent.errors.ScriptExhaustedError": [lambda c: c("no step left")],
    "tiermem.agent.errors.ScriptUnusedError": [lambda c: c("2 steps unused")],
    "tiermem.agent.context.ContextOverflowError": [
        lambda c: c("the prompt needs 9000 tokens of 8192", 9000, 8192),
        lambda c: c("the prompt does not fit", advice=None),
    ],
    "tiermem.agent.home.NoSuchAgentError": [lambda c: c("no agent named ada")],
    "tiermem.agent.home.EmptyHomeVariableError": [lambda c: c("TIERMEM_HOME is set but empty")],
    "tiermem.agent.home.HomeNotDirectoryError": [lambda c: c("TIERMEM_HOME is /h/notes.txt")],
    "tiermem.agent.home.HomeNotAccessibleError": [lambda c: c("this user may not read /h")],
    "tiermem.agent.place.StoreOptionError": [lambda c: c("--store names no database")],
    "tiermem.agent.policy_carry.PolicyConflictError": [
        lambda c: c("/h/agents/bob/policy.yaml differs from the policy of agent ada")],
    "tiermem.tools.declare.ToolDefinitionError": [lambda c: c("the tool has no docstring")],
    "tiermem.tools.declare.ToolError": [lambda c: c("no fact with that id")],
}


def _import_all() -> set[str]:
    """Import every module of the package; the modules skipped for a missing extra."""
    skipped = set()
    for module in pkgutil.walk_packages(tiermem.__path__, "tiermem."):
        if module.name in _SCRIPTS:
            continue
        try:
            importlib.import_module(module.name)
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] not in _EXTRAS:
                raise
            skipped.add(module.name)
    return skipped


def _subclasses(cls: type[Any]) -> Iterator[type[Any]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _name(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


SKIPPED = _import_all()
CLASSES = {_name(cls): cls for cls in [TiermemError, *_subclasses(TiermemError)]
           if cls.__module__.startswith("tiermem.")}


def test_every_error_class_has_a_sample() -> None:
    missing = sorted(set(CLASSES) - set(SAMPLES))
    assert not missing, f"add a sample of each to SAMPLES: {', '.join(missing)}"
    stale = sorted(name for name in set(SAMPLES) - set(CLASSES)
                   if name.rsplit(".", 1)[0] not in SKIPPED)
    assert not stale, f"SAMPLES names classes that no longer exist: {', '.join(stale)}"


def _samples() -> Iterator[Any]:
    for name, makers in sorted(SAMPLES.items()):
        if name in CLASSES:
            for number, make in enumerate(makers):
                yield pytest.param(CLASSES[name], make, id=f"{name.rsplit('.', 1)[1]}-{number}")


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
@pytest.mark.parametrize(("cls", "make"), list(_samples()))
def test_an_error_survives_pickling_whole(cls: type[Any], make: Sample, protocol: int) -> None:
    error = make(cls)
    assert type(error) is cls
    copy = pickle.loads(pickle.dumps(error, protocol=protocol))
    assert type(copy) is cls
    assert str(copy) == str(error)
    assert copy.args == error.args
    assert vars(copy) == vars(error)
    assert all(isinstance(copy, base) for base in cls.__mro__)


def test_a_worker_process_raises_the_same_error_in_its_parent(tmp_path: Path) -> None:
    # The parent holds the home, so the worker's own open is refused.
    held = WriterLock(tmp_path)
    held.acquire()
    try:
        with concurrent.futures.ProcessPoolExecutor(max_workers=1) as pool:
            failed = pool.submit(WriterLock(tmp_path).acquire).exception()
    finally:
        held.release()
    assert type(failed) is StoreLockedError
    assert str(failed) == str(StoreLockedError(str(tmp_path), os.getpid()))
    assert failed.holder_pid == os.getpid()
