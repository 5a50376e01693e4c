"""The prompt history: kept in the agent's database, erasable, or not kept at all."""

from __future__ import annotations

import asyncio
import gc
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from tiermem.agent.chat_history import StoredHistory, chat_history
from tiermem.agent.llm import LLMClient
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import ChatRepl
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.errors import StoreFullError
from tiermem.memory.prompt_history import MAX_JSON_CHARS, MAX_LINE_CHARS

UP = "\x1b[A"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "agent"


@pytest.fixture
def memory(home: Path) -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        yield m


def run_chat(memory: HierarchicalMemory, history: object, keys: str,
             errors: io.StringIO | None = None, llm: LLMClient | None = None) -> str:
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, llm or OfflinePolicy()), console=Console(file=out, width=200),
                    errors=errors or io.StringIO())
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        pipe.close()
        session: PromptSession[str] = PromptSession(input=pipe, output=DummyOutput(),
                                                    history=history)  # type: ignore[arg-type]
        assert repl.run_interactive(session=session) == 0
    return out.getvalue()


def test_typed_lines_are_kept_in_the_database_and_come_back_next_session(
        home: Path, memory: HierarchicalMemory) -> None:
    stored = chat_history(home, memory.prompt_history, True, io.StringIO())
    run_chat(memory, stored, "I live in Lyon.\r/model\r\x04")
    assert memory.prompt_history.lines() == ["I live in Lyon.", "/model"]
    assert sorted(p.name for p in home.iterdir() if "history" in p.name) == []
    # A new session: the up arrow brings back the newest line, then the one before it.
    again = chat_history(home, memory.prompt_history, True, io.StringIO())
    run_chat(memory, again, UP + UP + "\r\x04")
    users = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "user"]
    assert users == ["I live in Lyon.", "I live in Lyon."]


def test_no_history_keeps_nothing(home: Path, memory: HierarchicalMemory) -> None:
    history = chat_history(home, memory.prompt_history, False, io.StringIO())
    assert isinstance(history, InMemoryHistory)
    run_chat(memory, history, "secret plans\r\x04")
    assert memory.prompt_history.lines() == []
    assert memory.store.settings.get("state.prompt_history") is None


def test_an_old_history_file_is_moved_into_the_database(
        home: Path, memory: HierarchicalMemory) -> None:
    old = FileHistory(str(home / "history"))
    for line in ("first line", "second line"):
        old.append_string(line)
    warnings = io.StringIO()
    history = chat_history(home, memory.prompt_history, True, warnings)
    assert isinstance(history, StoredHistory)
    assert memory.prompt_history.lines() == ["first line", "second line"]
    assert not (home / "history").exists()
    assert "moved 2 lines of prompt history" in warnings.getvalue()


def test_an_old_history_file_counts_as_moved_only_the_lines_it_moved(
        home: Path, memory: HierarchicalMemory) -> None:
    old = FileHistory(str(home / "history"))
    for line in ("   ", "first line", "x" * (MAX_LINE_CHARS + 1), "\u2060"):
        old.append_string(line)
    warnings = io.StringIO()
    chat_history(home, memory.prompt_history, True, warnings)
    assert memory.prompt_history.lines() == ["first line"]
    assert not (home / "history").exists()
    said = " ".join(warnings.getvalue().split())
    assert "moved 1 line of prompt history" in said
    assert "(3 lines blank or too long to keep left out) and deleted the file" in said


def test_no_history_leaves_an_old_file_alone_and_says_so(
        home: Path, memory: HierarchicalMemory) -> None:
    FileHistory(str(home / "history")).append_string("old line")
    warnings = io.StringIO()
    chat_history(home, memory.prompt_history, False, warnings)
    assert (home / "history").exists() and memory.prompt_history.lines() == []
    assert "no longer reads it, so delete it" in warnings.getvalue()


def test_erasing_a_message_erases_its_line(memory: HierarchicalMemory) -> None:
    run_chat(memory, StoredHistory(memory.prompt_history), "my PIN is 4321\r/core\r\x04")
    pin = next(r["id"] for r in memory.recall.iter_rows() if r["content"] == "my PIN is 4321")
    assert memory.recall.erase([pin], reason="asked by the user") == 1
    assert memory.prompt_history.lines() == ["/core"]


def test_an_erasure_takes_the_searches_and_mentions_of_its_secret_out_of_the_history(
        memory: HierarchicalMemory) -> None:
    # Neither is a run of the erased message's words: the search names two of them out of
    # order, and the mention carries only the number.
    typed = "my PIN is 8675309\r/recall 8675309 PIN --all\rremind me of 8675309 later\r" \
            "/recall weather\r/core\r\x04"
    run_chat(memory, StoredHistory(memory.prompt_history), typed)
    pin = next(r["id"] for r in memory.recall.iter_rows() if r["content"] == "my PIN is 8675309")
    memory.erase(messages=[pin], reason="asked by the user")
    assert memory.prompt_history.lines() == ["/recall weather", "/core"]


def test_history_clear_command(memory: HierarchicalMemory) -> None:
    errors = io.StringIO()
    text = run_chat(memory, StoredHistory(memory.prompt_history),
                    "hello\r/history clear\r/history\r\x04", errors)
    # Only "hello" was there before: the command's own line is not counted.
    assert "erased 1 line of prompt history" in text
    assert "usage: /history clear" in errors.getvalue()  # the terminal shows both streams
    assert memory.prompt_history.lines() == ["/history"]


def test_history_clear_empties_a_history_kept_for_the_session_only(
        home: Path, memory: HierarchicalMemory) -> None:
    # --no-history: the session's lines are in memory, not the database, and the up arrow
    # brought them back after a /history clear that said it erased none.
    history = chat_history(home, memory.prompt_history, False, io.StringIO())
    text = run_chat(memory, history, f"my PIN is 4321\r/history clear\r{UP}\r\x04")
    assert "erased 1 line of prompt history" in text
    said = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "user"]
    assert said == ["my PIN is 4321"]  # the up arrow brought nothing back to send again

    async def lines() -> list[str]:
        return [line async for line in history.load()]

    assert asyncio.run(lines()) == []
    assert memory.prompt_history.lines() == []


def test_a_forget_line_leaves_a_history_kept_for_the_session_only(
        home: Path, memory: HierarchicalMemory) -> None:
    # --no-history: /forget took its own line (which quotes the secret) out of the database's
    # history only, so the up arrow still brought it back.
    history = chat_history(home, memory.prompt_history, False, io.StringIO())
    run_chat(memory, history, "/core\r/forget my PIN is 4321\r\x04")

    async def lines() -> list[str]:
        return [line async for line in history.load()]

    assert asyncio.run(lines()) == ["/core"]


@pytest.mark.parametrize("forget", ["/forget User's PIN is 8675309",
                                    "/forget --erase User's PIN is 8675309"])
def test_a_forget_takes_out_of_a_session_only_history_what_it_takes_out_of_the_stored_one(
        tmp_path: Path, forget: str) -> None:
    # --no-history: the message stating the secret, a search for it and a mention of it left
    # the database's history, and stayed where the up arrow brought them back.
    typed = (f"My PIN is 8675309.\r/recall PIN 8675309\rremind me of 8675309 later\r"
             f"I like tea.\r{forget}\r\x04")
    kept = {}
    for keep in (True, False):
        with HierarchicalMemory(tmp_path / str(keep), embedder=HashingEmbedder()) as memory:
            history = chat_history(None, memory.prompt_history, keep, io.StringIO())
            assert "1 fact, " in run_chat(memory, history, typed)

            async def lines() -> list[str]:
                return [line async for line in history.load()]  # noqa: B023

            kept[keep] = asyncio.run(lines())
    assert kept[True] == kept[False] == ["I like tea."]


def test_a_session_only_history_is_not_held_by_the_memory_after_its_chat(
        memory: HierarchicalMemory) -> None:
    # Each chat on the same memory added its lines to a list the memory held until closed.
    for _ in range(3):
        history = chat_history(None, memory.prompt_history, False, io.StringIO())
        run_chat(memory, history, "My PIN is 8675309.\r\x04")
        gc.collect()  # a chat's prompt session holds its history in reference cycles
        assert list(memory.prompt_history.copies) == [history]
    del history
    gc.collect()
    assert list(memory.prompt_history.copies) == []


def test_the_up_arrow_brings_back_no_line_cleared_or_forgotten_in_the_session(
        memory: HierarchicalMemory) -> None:
    # Every prompt's buffer reads the history anew (History.load), in the session that
    # typed the lines too: what /history clear or a /forget took out of the database
    # must not come back from what an earlier prompt read.
    async def lines(history: StoredHistory) -> list[str]:
        return [line async for line in history.load()]

    history = StoredHistory(memory.prompt_history)
    for line in ("my PIN is 4321", "/recall PIN", "/history clear"):
        history.append_string(line)  # as each prompt keeps the line sent
    assert asyncio.run(lines(history)) == ["/history clear", "/recall PIN", "my PIN is 4321"]
    memory.prompt_history.clear()
    assert asyncio.run(lines(history)) == []
    history.append_string("/forget my PIN is 4321")
    memory.prompt_history.forget(["/forget my PIN is 4321"])
    assert asyncio.run(lines(history)) == []


def test_long_pastes_are_not_kept_and_the_history_stays_bounded(
        memory: HierarchicalMemory) -> None:
    history = memory.prompt_history
    assert not history.add("x" * (MAX_LINE_CHARS + 1))
    for i in range(MAX_JSON_CHARS // 100):
        history.add(f"{i:04} " + "y" * 120)
    lines = history.lines()
    assert lines[-1].startswith(f"{MAX_JSON_CHARS // 100 - 1:04} ")
    assert len(memory.store.settings.get("state.prompt_history") or "") <= MAX_JSON_CHARS
    assert len(lines) < MAX_JSON_CHARS // 100


def test_the_history_travels_with_a_snapshot(memory: HierarchicalMemory, tmp_path: Path) -> None:
    memory.prompt_history.add("kept line")
    with HierarchicalMemory.restore(memory.snapshot(), tmp_path / "copy",
                                    HashingEmbedder()) as copy:
        assert copy.prompt_history.lines() == ["kept line"]


def test_a_history_that_cannot_be_saved_is_said_once_and_the_chat_goes_on(
        memory: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    def disk_full(line: str) -> bool:
        raise StoreFullError("the disk is full")

    monkeypatch.setattr(memory.prompt_history, "add", disk_full)
    warnings = io.StringIO()
    run_chat(memory, StoredHistory(memory.prompt_history, warnings), "one\rtwo\r\x04")
    assert warnings.getvalue().count("the prompt history could not be saved") == 1
    users = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "user"]
    assert users == ["one", "two"]


@pytest.mark.parametrize("first", ["piped chat", "forget", "forget, then erase-forgotten"])
def test_an_old_history_file_is_moved_by_every_writer_so_an_erasure_reaches_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        first: str) -> None:
    from leak_helpers import files_holding

    from tiermem.cli import run

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    secret = "My card number is 4111 2222."
    home = tmp_path / "agents" / "legacy"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.recall.append("user", secret, turn=1)
        if first == "forget, then erase-forgotten":
            assert memory.forget(secret).outcome == "matched"  # forgotten, not erased
    FileHistory(str(home / "history")).append_string(secret)  # as an older version kept it
    if first == "piped chat":
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"/core\n")))
        assert run(["chat", "--offline", "--agent", "legacy", "--embedder", "hashing"]) == 0
        assert not (home / "history").exists()
    erase = (["--erase-forgotten"] if first == "forget, then erase-forgotten"
             else ["--erase", secret])
    assert run(["forget", "--agent", "legacy", "--embedder", "hashing", *erase]) == 0
    assert "moved 1 line of prompt history" in capsys.readouterr().err
    assert files_holding(home, "4111 2222") == []


def test_an_old_history_file_is_no_postgresql_agents(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, postgres_dsn: str) -> None:
    from tiermem.cli import run

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "twin"  # a SQLite agent of the same name as the one below
    home.mkdir(parents=True)
    FileHistory(str(home / "history")).append_string("a line of the SQLite agent")
    with HierarchicalMemory(store=postgres_dsn, agent="twin", embedder=HashingEmbedder()):
        pass
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"/core\n")))
    assert run(["chat", "--offline", "--agent", "twin", "--store", postgres_dsn,
                "--embedder", "hashing"]) == 0
    assert run(["forget", "--agent", "twin", "--store", postgres_dsn, "--embedder", "hashing",
                "no such text"]) == 1
    assert (home / "history").read_text().count("a line of the SQLite agent") == 1
    with HierarchicalMemory(store=postgres_dsn, agent="twin", embedder=HashingEmbedder(),
                            read_only=True) as memory:
        assert memory.prompt_history.lines() == []


def test_an_erasure_leaves_lines_that_share_only_a_year_or_common_words(
        memory: HierarchicalMemory) -> None:
    typed = "I broke my leg skiing in 2019\r/recall my\rWe visited Rome in 2019\r/core\r\x04"
    run_chat(memory, StoredHistory(memory.prompt_history), typed)
    leg = next(r["id"] for r in memory.recall.iter_rows()
               if r["content"] == "I broke my leg skiing in 2019")
    memory.set_state("notes", "Trip to Rome in 2019\nLikes tea")
    memory.erase(messages=[leg], reason="asked by the user")
    assert memory.prompt_history.lines() == ["/recall my", "We visited Rome in 2019", "/core"]
    assert memory.get_state("notes") == "Trip to Rome in 2019\nLikes tea"


def test_bytes_typed_that_are_not_utf8_are_sent_and_kept_as_u_fffd(
        home: Path, memory: HierarchicalMemory) -> None:
    out, errors = io.StringIO(), io.StringIO()
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                    errors=errors)
    with create_pipe_input() as pipe:
        pipe.send_bytes(b"I use caf\xe9 wifi.\r\x04")  # a Latin-1 terminal's e-acute
        pipe.close()
        session: PromptSession[str] = PromptSession(
            input=pipe, output=DummyOutput(),
            history=chat_history(home, memory.prompt_history, True, io.StringIO()))
        assert repl.run_interactive(session=session) == 0
    assert errors.getvalue() == ("tiermem: the line typed is not valid UTF-8 (byte 10); it "
                                 "was sent with U+FFFD in place of the bytes that are not\n")
    assert [r["content"] for r in memory.recall.iter_rows() if r["role"] == "user"] == [
        "I use caf\ufffd wifi."]
    assert memory.prompt_history.lines() == ["I use caf\ufffd wifi."]


@pytest.mark.parametrize("keep", [True, False])
def test_history_clear_counts_only_the_lines_typed_before_it(
        home: Path, memory: HierarchicalMemory, keep: bool) -> None:
    # It counted its own line: "erased 1" at an empty history, "erased 2" after one message.
    history = chat_history(home, memory.prompt_history, keep, io.StringIO())
    text = run_chat(memory, history, "/history clear\r/history clear\r\x04")
    assert text.count("erased 0 lines of prompt history") == 2
    piped = io.StringIO()
    ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=piped, width=200),
             errors=io.StringIO()).run_piped(["hello\n", "/history clear\n"])
    assert "erased 0 lines of prompt history" in piped.getvalue()  # a pipe keeps no lines


def test_a_command_typed_in_capitals_leaves_the_history_as_in_lower_case(
        home: Path, memory: HierarchicalMemory) -> None:
    # "/FORGET ..." was an unknown command, and "/HISTORY CLEAR" a usage error; run now, the
    # /forget line quoting what is forgotten still leaves the history, and the count of
    # lines erased does not count the /history line itself.
    stored = chat_history(home, memory.prompt_history, True, io.StringIO())
    run_chat(memory, stored, "My PIN is 1234.\r/Core\r/FORGET User's PIN is 1234\r\x04")
    assert "User's PIN is 1234" not in [f.text for f in memory.core]
    assert memory.prompt_history.lines() == ["/Core"]  # the PIN went with the message
    again = chat_history(home, memory.prompt_history, True, io.StringIO())
    assert "erased 1 line of prompt history" in run_chat(memory, again, "/HISTORY CLEAR\r\x04")
    assert memory.prompt_history.lines() == []


@pytest.mark.parametrize("stored", [True, False])
def test_a_command_after_a_mark_that_shows_nothing_leaves_the_history_as_without_it(
        home: Path, memory: HierarchicalMemory, stored: bool) -> None:
    # "\u200b/forget ..." ran /forget but its line, kept with the U+200B, was not the line
    # "/forget ..." it took out: the up arrow still brought back the code it quoted; and
    # "\ufeff/history clear" counted its own line among those erased.
    history = chat_history(home, memory.prompt_history, stored, io.StringIO())
    run_chat(memory, history, "/core\r\u200b/forget Launch code is 4321\r\x04")

    async def lines() -> list[str]:
        return [line async for line in history.load()]

    assert asyncio.run(lines()) == ["/core"]
    assert memory.prompt_history.lines() == (["/core"] if stored else [])
    again = chat_history(home, memory.prompt_history, stored, io.StringIO()) if stored \
        else history
    erased = run_chat(memory, again, "\ufeff/history clear\r\x04")
    assert "erased 1 line of prompt history" in erased


def offered(history: object) -> list[str]:
    """What the up arrow brings back, newest first."""
    async def lines() -> list[str]:
        return [line async for line in history.load()]  # type: ignore[attr-defined]

    return asyncio.run(lines())


@pytest.mark.parametrize("stored", [True, False])
def test_a_line_the_chat_reads_as_blank_is_not_kept(
        home: Path, memory: HierarchicalMemory, stored: bool) -> None:
    # A word joiner alone (or blanks around a zero-width space) sent nothing, yet the up
    # arrow brought it back as a line that looks empty.
    history = chat_history(home, memory.prompt_history, stored, io.StringIO())
    run_chat(memory, history, "/core\r\u2060\r \u200b \r\x04")
    assert offered(history) == ["/core"]
    assert memory.prompt_history.lines() == (["/core"] if stored else [])
    assert not memory.prompt_history.add("\ufeff\u2060")


def test_an_erasure_takes_out_a_search_for_it_however_its_options_are_typed(
        memory: HierarchicalMemory) -> None:
    # Each ran as a search for "launch code", yet was read as words the erased message does
    # not hold ("page", "2", "all") or as no command at all, and stayed for the up arrow.
    searches = ["/recall launch code --page=2", "\u200b/recall launch code",
                "/recall launch code --ALL", "/recall --PAGE 2 launch code",
                "/archival launch code --Page 2"]
    run_chat(memory, StoredHistory(memory.prompt_history),
             "the launch code is blue\r" + "\r".join(searches) + "\r/recall code red\r\x04")
    said = next(r["id"] for r in memory.recall.iter_rows()
                if r["content"] == "the launch code is blue")
    memory.erase(messages=[said], reason="asked by the user")
    assert memory.prompt_history.lines() == ["/recall code red"]
