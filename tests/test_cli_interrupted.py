"""Ctrl-C during a long command: it exits 130 with one line on standard error saying what
state it left and what to run next. Ctrl-C is raised by a hook at a chosen point (the
signal handler raises KeyboardInterrupt the same way), never by a timer."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import database_digest

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops import reindex
from tiermem.memory.store.sqlite.store import SQLiteStore


@pytest.fixture
def ada(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Agent ada's home under $TIERMEM_HOME: a fact, passages and a few turns."""
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User's locker code is 4412", "durable")
        for i in range(40):
            memory.archival_insert(f"runbook step {i}: restart the worker")
        for i in range(3):
            memory.process_interaction(f"Message {i} about the deploy.", f"ok {i}")
    return home


def _ctrl_c_once(monkeypatch: pytest.MonkeyPatch, target: Any, name: str) -> None:
    """``target.name`` raises KeyboardInterrupt on its first call, then works."""
    original = getattr(target, name)
    calls = [0]

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == 1:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(target, name, interrupted)


def test_forget_erase_stopped_after_the_erasure_committed_says_it_was_saved(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _ctrl_c_once(monkeypatch, SQLiteStore, "purge_erased")  # the purge after the commit
    assert main(["forget", "--agent", "ada", "--erase", "User's locker code is 4412"]) == 130
    done = capsys.readouterr()
    assert done.out == ""
    assert done.err == (
        "tiermem: forget stopped (Ctrl-C) after the erasure was saved (audit #1): what it "
        "matched is gone from the memory, but old copies may remain in its files until "
        "`tiermem forget --agent ada --finish-erasures` clears them (any command that opens "
        "the memory for writing does it first)\n")
    assert main(["forget", "--agent", "ada", "--finish-erasures"]) == 0
    assert "finished the purge" in capsys.readouterr().out


def test_forget_erase_stopped_before_the_erasure_says_how_to_finish_it(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import tiermem.memory.ops.forget as forget_module

    _ctrl_c_once(monkeypatch, forget_module, "erase_rows")
    assert main(["forget", "--agent", "ada", "--erase", "User's locker code is 4412"]) == 130
    assert capsys.readouterr().err == (
        "tiermem: forget stopped (Ctrl-C) after what the request matched was forgotten (audit "
        "#1) and before it was erased: run `tiermem forget --agent ada --finish-erasures` to "
        "erase it now (any command that opens the memory for writing does it first)\n")
    assert main(["forget", "--agent", "ada", "--finish-erasures", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["finished"] == [1]


def test_forget_stopped_before_the_request_was_saved_says_nothing_was_forgotten(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import tiermem.memory.ops.forget as forget_module

    before = database_digest(ada)
    _ctrl_c_once(monkeypatch, forget_module, "run_forget")
    assert main(["forget", "--agent", "ada", "User's locker code is 4412"]) == 130
    assert capsys.readouterr().err == (
        "tiermem: forget stopped (Ctrl-C) before the request was saved: nothing was "
        "forgotten\n")
    assert database_digest(ada) == before


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_reindex_stopped_says_how_far_it_got_and_to_run_it_again(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        request: pytest.FixtureRequest, backend: str) -> None:
    from tiermem.agent.place import store_flag

    given: list[str] = []
    if backend == "postgres":
        dsn = request.getfixturevalue("postgres_dsn")
        assert main(["migrate", "--from", str(ada), "--to", dsn, "--agent", "ada"]) == 0
        given = ["--store", dsn]
    store = store_flag(given[1] if given else None)
    monkeypatch.setattr(reindex, "BATCH_ROWS", 16)
    embedded = HashingEmbedder.embed_documents
    batches = [0]

    def second_batch_interrupted(self: HashingEmbedder, texts: Any) -> Any:
        batches[0] += 1
        if batches[0] == 2:
            raise KeyboardInterrupt
        return embedded(self, texts)

    monkeypatch.setattr(HashingEmbedder, "embed_documents", second_batch_interrupted)
    command = ["reindex", "--agent", "ada", *given, "--embedder", "hashing"]
    assert main(command) == 130
    err = capsys.readouterr().err
    assert err.endswith(
        f"tiermem: reindex stopped (Ctrl-C) after 16 of 40 passages; search by meaning cannot "
        f"work until it finishes: run `tiermem reindex --agent ada{store} --embedder hashing` "
        f"again to continue where it stopped\n")
    assert main(command) == 0


def test_migrate_stopped_mid_copy_says_the_target_holds_nothing_and_to_run_it_again(
        ada: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.agent import store_commands

    def interrupting(note: Any) -> Any:
        def progress(table: str, done: int, total: int) -> None:
            raise KeyboardInterrupt
        return progress

    monkeypatch.setattr(store_commands, "row_progress", interrupting)
    target = tmp_path / "copy"
    assert main(["migrate", "--from", str(ada), "--to", str(target)]) == 130
    assert capsys.readouterr().err == (
        f"tiermem: migrate stopped (Ctrl-C) before its copy committed: {target} holds no "
        f"memory yet (its database is built aside and was never moved into place) and the "
        f"source was only read; run the same `tiermem migrate` again, which copies it whole\n")
    assert not target.exists()  # the home it made goes with it
    monkeypatch.undo()
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    assert main(["migrate", "--from", str(ada), "--to", str(target)]) == 0


def test_migrate_stopped_after_the_new_home_s_database_took_its_place_says_it_is_in_place(
        ada: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C at each statement from the rename that puts the database built aside into the
    new home to the end of the copy (syncing, closing, leaving the blocks): the home holds
    the verified copy, and the note must say so, not that it holds no memory yet."""
    with HierarchicalMemory(ada, embedder=HashingEmbedder(), read_only=True) as source:
        facts = [f.text for f in source.core]
    stops = 0
    while True:
        left = _ctrl_c_after_the_rename(monkeypatch, stops)
        target = tmp_path / f"copy{stops}"
        try:
            code = main(["migrate", "--from", str(ada), "--to", str(target)])
        finally:
            sys.settrace(None)
        err = capsys.readouterr().err
        if left[0] >= 0:
            assert code == 0 and stops > 5, err  # the copy ran to its end uninterrupted
            break
        assert code == 130 and err.splitlines()[-1] == (
            f"tiermem: migrate stopped (Ctrl-C) after its copy into {target} committed and "
            f"matched"), (stops, err)
        with HierarchicalMemory(target, embedder=HashingEmbedder(), read_only=True) as moved:
            assert [f.text for f in moved.core] == facts
        stops += 1


def _ctrl_c_after_the_rename(monkeypatch: pytest.MonkeyPatch, stops: int) -> list[int]:
    """Ctrl-C at the statement ``stops`` after the rename that puts a database built aside
    into its home, counting those of the code that renames it and what it returns to until
    the copy's blocks end; the list returned holds the statements left, -1 once raised."""
    import contextlib

    import tiermem.memory.output_file as output_file
    import tiermem.memory.store.sqlite.restore as restore_file
    import tiermem.memory.store.transfer as transfer
    from tiermem.agent import store_commands

    window = {module.__file__ for module in (restore_file, transfer, output_file)}
    # The blocks the copy is made in end in contextlib, called from the command or transfer.
    callers = {transfer.__file__, store_commands.__file__}
    renamed = restore_file.place
    left = [stops]

    def counted(frame: Any) -> bool:
        if frame.f_code.co_filename in window:
            return True
        return (frame.f_code.co_filename == contextlib.__file__ and frame.f_back is not None
                and frame.f_back.f_code.co_filename in callers)

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if event == "line" and left[0] >= 0 and counted(frame):
            left[0] -= 1
            if left[0] < 0:
                raise KeyboardInterrupt
        return tracer

    def place(built: Path, target: Path) -> None:
        renamed(built, target)
        sys.settrace(tracer)  # for the frames called from here on; those it returns to:
        frame = sys._getframe(1)
        while frame is not None:
            frame.f_trace = tracer
            frame = frame.f_back

    monkeypatch.setattr(restore_file, "place", place)
    return left


def test_migrate_stopped_as_it_closes_its_source_says_the_copy_is_in_place(
        ada: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    closed = SQLiteStore.close

    def close(self: SQLiteStore) -> None:
        closed(self)
        if self.read_only:  # the source, closed once the copy is done
            raise KeyboardInterrupt

    monkeypatch.setattr(SQLiteStore, "close", close)
    target = tmp_path / "copy"
    assert main(["migrate", "--from", str(ada), "--to", str(target)]) == 130
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"tiermem: migrate stopped (Ctrl-C) after its copy into {target} committed and matched")


def test_restore_stopped_says_the_home_is_as_it_was(
        ada: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import tiermem.memory.ops.snapshot as snapshot_module

    with HierarchicalMemory(ada, embedder=HashingEmbedder()) as memory:
        (tmp_path / "ada.json").write_text(json.dumps(memory.snapshot()), encoding="utf-8")
    before = database_digest(ada)
    _ctrl_c_once(monkeypatch, snapshot_module, "write_rows")
    assert main(["restore", str(tmp_path / "ada.json"), "--agent", "ada", "--replace"]) == 130
    assert capsys.readouterr().err == (
        "tiermem: restore stopped (Ctrl-C) before it finished; the new database is built "
        "aside and was never moved into place: agent ada's home is as it was. Run the same "
        "`tiermem restore` again\n")
    assert database_digest(ada) == before


class _Stdin(io.BytesIO):
    """Piped standard input whose reads raise KeyboardInterrupt once ``lines`` are read
    (Ctrl-C while the chat waits for more)."""

    def __init__(self, lines: bytes, then_ctrl_c: bool) -> None:
        super().__init__(lines)
        self.then_ctrl_c = then_ctrl_c

    def isatty(self) -> bool:
        return False

    def _ended(self, got: bytes) -> bytes:
        if not got and self.then_ctrl_c:
            raise KeyboardInterrupt
        return got

    def read(self, size: int | None = -1) -> bytes:
        return self._ended(super().read(size))

    def read1(self, size: int = -1) -> bytes:
        return self._ended(super().read1(size))

    def readinto(self, buffer: Any) -> int:
        got = super().readinto(buffer)
        self._ended(b"x" if got else b"")
        return got


def _pipe_in(monkeypatch: pytest.MonkeyPatch, text: str, then_ctrl_c: bool = False) -> None:
    stream = io.TextIOWrapper(_Stdin(text.encode(), then_ctrl_c), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stream)


def test_piped_chat_stopped_during_a_slash_command_says_so_and_what_it_left(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _ctrl_c_once(monkeypatch, HierarchicalMemory, "diagnostics")
    _pipe_in(monkeypatch, "hello there\n/diagnostics\nnever read\n")
    command = ["chat", "--agent", "ada", "--embedder", "hashing", "--offline"]
    assert main(command) == 130
    err = capsys.readouterr().err
    assert err.endswith(
        "tiermem: chat stopped (Ctrl-C) during /diagnostics: it changed nothing; the lines "
        "before it were handled, and none after it was read\n"), err
    with HierarchicalMemory(ada, embedder=HashingEmbedder(), read_only=True) as memory:
        said = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "user"]
    assert "hello there" in said and "never read" not in said
    # With --json the command's line gets its record, as a cancelled turn's does.
    _ctrl_c_once(monkeypatch, HierarchicalMemory, "diagnostics")
    _pipe_in(monkeypatch, "/diagnostics\n")
    assert main([*command, "--json"]) == 130
    done = capsys.readouterr()
    [record] = [json.loads(line) for line in done.out.splitlines()]
    assert record["command"] == "/diagnostics" and record["error"]["kind"] == "cancelled"
    assert done.err.endswith(record["error"]["message"] + "\n")


def test_piped_chat_stopped_while_waiting_for_input_says_what_was_handled(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _pipe_in(monkeypatch, "hello there\n", then_ctrl_c=True)
    assert main(["chat", "--agent", "ada", "--embedder", "hashing", "--offline"]) == 130
    done = capsys.readouterr()
    assert done.err.endswith(
        "tiermem: chat stopped (Ctrl-C) while waiting for the next line; the lines before it "
        "were handled, and none after it was read\n"), done.err
    assert "Traceback" not in done.err


def test_chat_stopped_as_it_closes_the_memory_says_so_not_that_it_read_nothing(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Ctrl-C pressed again after "bye" (or the input's end) lands as the memory closes.
    _ctrl_c_once(monkeypatch, HierarchicalMemory, "close")
    _pipe_in(monkeypatch, "hello there\n")
    assert main(["chat", "--agent", "ada", "--embedder", "hashing", "--offline"]) == 130
    err = capsys.readouterr().err
    assert err.endswith(
        "tiermem: chat stopped (Ctrl-C) as it closed the memory, after the session ended; "
        "every turn and command it finished was saved\n"), err
    assert "before it read any input" not in err
    with HierarchicalMemory(ada, embedder=HashingEmbedder(), read_only=True) as memory:
        said = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "user"]
    assert "hello there" in said


def test_diagnostics_and_config_stopped_say_nothing_was_changed(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.agent import settings

    before = database_digest(ada)
    _ctrl_c_once(monkeypatch, HierarchicalMemory, "diagnostics")
    assert main(["diagnostics", "--agent", "ada"]) == 130
    assert capsys.readouterr() == ("", (
        "tiermem: diagnostics stopped (Ctrl-C); the memory was not changed: it only reads it "
        "(a report file is written whole or not at all)\n"))
    _ctrl_c_once(monkeypatch, settings, "print_settings")
    assert main(["config", "--agent", "ada"]) == 130
    assert capsys.readouterr().err == (
        "tiermem: config stopped (Ctrl-C); the settings were not changed: it only showed them\n")
    assert database_digest(ada) == before
    ada.chmod(0o755)  # a home made before homes were private: opening it changes that
    _ctrl_c_once(monkeypatch, HierarchicalMemory, "diagnostics")
    assert main(["diagnostics", "--agent", "ada"]) == 130
    said = capsys.readouterr().err
    assert "private" in said and "nothing was changed" not in said, said
    assert said.endswith("diagnostics stopped (Ctrl-C); the memory was not changed: it only "
                         "reads it (a report file is written whole or not at all)\n"), said
    assert database_digest(ada) == before
    _ctrl_c_once(monkeypatch, settings, "change_setting")
    assert main(["config", "--agent", "ada", "core_limit", "500"]) == 130
    assert capsys.readouterr().err == (
        "tiermem: config stopped (Ctrl-C); the change to core_limit is stored whole or not at "
        "all: `tiermem config --agent ada core_limit` shows which\n")


@pytest.mark.parametrize(("argv", "says"), [
    (["doctor", "--base-url", "http://127.0.0.1:9/v1"],
     "doctor stopped (Ctrl-C); nothing was changed: it only sends test requests to the model "
     "server"),
    (["index", "--agent", "ada"],
     "index stopped (Ctrl-C); a search graph is saved whole or not at all, and the memory's "
     "data is unchanged: run `tiermem index --agent ada` again to build what is missing"),
    (["scenario", "allergy"],
     "scenario stopped (Ctrl-C) before its report; its memory under $TIERMEM_HOME/scenarios "
     "is left partial, and the next run starts it afresh"),
    (["benchmark", "--quick"],
     "benchmark stopped (Ctrl-C) before its report; it works in temporary directories, so "
     "nothing else was changed"),
    (["pg", "status"],
     "pg status stopped (Ctrl-C); nothing was changed: it only asks whether the server runs"),
    (["pg", "start", "--dir", "/tmp/x"],
     "pg start stopped (Ctrl-C); the server may be left starting or stopping: `tiermem pg "
     "status --dir /tmp/x` says whether it runs, `tiermem pg stop --dir /tmp/x` stops it"),
    (["drop-agent", "--agent", "ada", "--store", "postgresql:///x", "--yes"],
     "drop-agent stopped (Ctrl-C) before it deleted anything: agent 'ada' is as it was, if "
     "it is there"),
    (["forget", "--agent", "ada", "--erase-forgotten"],
     "forget stopped (Ctrl-C); an erasure commits whole or not at all: run the same command "
     "again to finish it (it says when nothing is left to erase)"),
    (["forget", "--agent", "ada", "some text"],
     "forget stopped (Ctrl-C) before it changed what the memory holds"),
    (["chat", "--agent", "ada"],
     "chat stopped (Ctrl-C) before it read any input; no message was sent or kept"),
    (["eval", "locomo", "--data", "x"], "eval stopped (Ctrl-C) before it changed anything"),
])
def test_every_command_stopped_where_it_says_nothing_itself_gets_one_line(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        argv: list[str], says: str) -> None:
    """Ctrl-C as a command starts (loading its modules, opening the memory): one line on
    standard error, exit 130, never a bare exit or a traceback."""
    import tiermem.cli as cli

    def stopped(command: str) -> Any:
        def body(args: Any, note: Any) -> int:
            raise KeyboardInterrupt
        return body

    monkeypatch.setattr(cli, "handler", stopped)
    assert main(argv) == 130
    assert capsys.readouterr() == ("", f"tiermem: {says}\n")


def test_every_command_has_a_line_for_ctrl_c() -> None:
    from tiermem.agent.cli_parser import COMMANDS, parse_args
    from tiermem.agent.interrupted import interrupted_note

    samples = {"pg": ["pg", "stop"], "migrate": ["migrate", "--from", "a", "--to", "b"],
               "restore": ["restore", "f.json", "--agent", "a"],
               "eval": ["eval", "locomo", "--data", "x"],
               "drop-agent": ["drop-agent", "--agent", "a"]}
    for command in COMMANDS:
        args = parse_args(samples.get(command, [command]))
        said = interrupted_note(args)
        assert said.startswith(f"{command} ") and " stopped (Ctrl-C)" in said, said


def test_the_line_for_ctrl_c_needs_no_module_ctrl_c_may_have_cut_short() -> None:
    """Ctrl-C lands most often while a command imports its modules, and leaves the one it
    cut short half made: importing it again for the message failed with an ImportError
    traceback (exit 1). The message's module imports none of tiermem's own."""
    import subprocess

    code = ("import sys, tiermem.agent.interrupted as m, argparse; "
            "a = argparse.Namespace(command='index', agent='a', store='postgresql:///x'); "
            "sys.modules['tiermem.agent.place'] = None; print(m.interrupted_note(a)); "
            "print(sorted(n for n in sys.modules if n.startswith('tiermem.') "
            "and n not in ('tiermem.agent', 'tiermem.agent.interrupted', 'tiermem.agent.place')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    said, loaded = done.stdout.splitlines()
    assert said.startswith("index stopped (Ctrl-C); ") and "--store DSN --agent a" in said
    assert loaded == "[]"
