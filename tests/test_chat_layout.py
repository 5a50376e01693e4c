"""What the chat prints for people fits the terminal: /help, the banner, /core, tool calls
and /recall hits at 80 columns and narrower, wrapped between words with a hanging indent,
never cut."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit import PromptSession
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.cells import cell_len
from rich.console import Console

from tiermem.agent.chat_help import reply_text
from tiermem.agent.line_breaks import break_offsets
from tiermem.agent.llm import LLMClient
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import ChatRepl
from tiermem.agent.scripted import ScriptedModel
from tiermem.agent.scripted import reply as reply_with
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=200) as m:
        yield m


def shown(memory: HierarchicalMemory, width: int, line: str,
          llm: LLMClient | None = None) -> list[str]:
    """The lines ``line`` prints on a terminal ``width`` columns wide."""
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, llm or OfflinePolicy()),
                    console=Console(file=out, width=width, color_system=None),
                    errors=io.StringIO())
    repl.interactive = True
    if line == "banner":
        repl.banner()
    else:
        repl.handle(line)
    return out.getvalue().splitlines()


@pytest.mark.parametrize("width", [80, 50])
def test_help_fits_the_width_with_its_descriptions_indented(
        memory: HierarchicalMemory, width: int) -> None:
    lines = shown(memory, width, "/help")
    assert max(map(len, lines)) <= width
    commands = lines[1:lines.index(next(line for line in lines if line.startswith("A line")))]
    # Every line of the list is a command or the indented rest of one: none at column 0.
    assert all(line.startswith("  ") for line in commands), commands
    text = " ".join(" ".join(lines).split())
    assert "(/archival --page 2 QUERY: the next 10)" in text
    assert "/forget --erase-forgotten" in text and '("//help" sends "/help")' in text


class LongNamedModel(OfflinePolicy):
    name = "a-very-long-model-name-from-a-local-server (served by llama.cpp, quantised Q4_K_M)"


def test_the_banner_wraps_with_a_hanging_indent(memory: HierarchicalMemory) -> None:
    lines = shown(memory, 80, "banner", LongNamedModel())
    assert max(map(len, lines)) <= 80
    assert lines[0].startswith("tiermem agent default · model: a-very-long-model-name")
    assert lines[1].startswith("  ") and lines[1].strip().endswith("Q4_K_M)")
    assert lines[2].startswith("core 0/200 tokens, 0 archival, 0 recall")

    assert not any(line.startswith("memory:") for line in lines)  # held in this process


def test_the_banner_says_where_the_memory_is_kept(tmp_path: Path) -> None:
    """A first chat creates the agent home without a word: the banner names it."""
    home = tmp_path / "agents" / "default"
    with HierarchicalMemory(home, embedder=HashingEmbedder(), core_limit=200) as m:
        lines = shown(m, 200, "banner")
    assert lines[1].startswith("core 0/200 tokens")
    assert lines[2] == f"memory: {home}"

def facts(memory: HierarchicalMemory) -> None:
    shown(memory, 200, "My favourite seat is a window seat on long flights.")
    shown(memory, 200, "I live in Lyon.")
    assert [f.text for f in memory.core] == [
        "User's favourite seat is a window seat on long flights", "User lives in Lyon"]


def test_core_at_80_columns_shows_every_column(memory: HierarchicalMemory) -> None:
    facts(memory)
    text = "\n".join(shown(memory, 80, "/core"))
    assert all(column in text for column in ("fact", "durability", "accesses", "score"))


@pytest.mark.parametrize("width", [40, 20])
def test_core_at_a_narrow_width_keeps_each_fact_readable(
        memory: HierarchicalMemory, width: int) -> None:
    facts(memory)
    lines = shown(memory, width, "/core")
    assert max(map(len, lines)) <= width
    text = "\n".join(lines)
    assert "…" not in text
    words = text.replace("│", " ").split()
    for word in " ".join(fact.text for fact in memory.core).split():
        assert word in words, (word, text)


@pytest.mark.parametrize(("width", "columns"), [(40, None), (60, 3), (80, 5)])
def test_core_shows_a_long_word_whole_where_a_layout_has_room_for_it(
        memory: HierarchicalMemory, width: int, columns: int | None) -> None:
    # At 40 columns the table's fact column is 18 wide, at 60 with the counts 19: a URL in
    # a fact was folded mid-way while the list, or the table without the counts, had room.
    shown(memory, 200, "My favourite website is https://example.com/docs/guide today.")
    url = "https://example.com/docs/guide"
    assert any(url in fact.text for fact in memory.core)
    lines = shown(memory, width, "/core")
    assert max(map(len, lines)) <= width
    assert url in "\n".join(lines).replace("│", " ").split(), lines
    text = "\n".join(lines)
    assert ("durability" in text) == (columns is not None), lines
    assert ("accesses" in text) == (columns == 5), lines


def test_core_keeps_its_columns_for_a_cjk_fact_a_line_may_break_between_characters(
        memory: HierarchicalMemory) -> None:
    # Written without spaces, the fact is one "word" 48 cells wide: read as one, it cost
    # the table its counts at 80 columns, though the table breaks it between characters.
    fact = "ユーザーは東京に住んでいて毎朝コーヒーを飲みます"
    memory.add_fact(fact)
    lines = shown(memory, 80, "/core")
    text = "\n".join(lines)
    assert "accesses" in text and "score" in text, lines
    assert max(map(cell_len, lines)) <= 80
    # The fact column's cells, read down: the fact whole, none of it cut to an ellipsis.
    cells = "".join(line.split("│")[2].strip() for line in lines if line.count("│") == 6)
    assert fact in cells, lines


def indented_entries(lines: list[str], start: str) -> list[list[str]]:
    """The entries of ``lines`` that begin with ``start``, each with the lines up to the
    next entry or the first line indented less than 4 columns (what follows the entries,
    or a line wrapped back to column 0, which the entry takes so that a test sees it)."""
    entries: list[list[str]] = []
    for line in lines:
        if line.startswith(start):
            entries.append([line])
        elif entries and (line.startswith("    ") or entries[-1][-1].startswith(start)):
            entries[-1].append(line)
    return entries


def test_tool_calls_and_recall_hits_wrap_with_a_hanging_indent(
        memory: HierarchicalMemory) -> None:
    facts(memory)
    lines = shown(memory, 40, "What is my favourite seat on long flights these days?")
    calls = indented_entries(lines, "  ↳ ")
    assert [entry[0].split("(")[0] for entry in calls] == [
        "  ↳ archival_memory_search", "  ↳ conversation_search"]
    for entry in calls:
        assert len(entry) > 1 and all(more.startswith("    ") for more in entry[1:]), lines
        assert " ".join(" ".join(entry).split()).endswith("flights these days?): " + (
            "0 matches" if "archival" in entry[0] else "2 matches"))
    hits = indented_entries(shown(memory, 40, "/recall window seat long flights")[1:], "  #")
    assert any(len(entry) > 1 for entry in hits), hits  # a hit too long for one line
    assert all(more.startswith("    ") for entry in hits for more in entry[1:]), hits
    assert max(map(len, lines)) <= 40


def test_a_cjk_run_in_a_tool_call_breaks_between_its_characters(
        memory: HierarchicalMemory) -> None:
    # A run written without spaces was one word: moved whole under the call's name, it
    # left "  ↳" alone on the first line, then was folded at the width.
    question = "東京の天気予報と大阪の天気予報はどうなっていますか?"
    lines = shown(memory, 40, question)
    calls = indented_entries(lines, "  ↳ ")
    assert [entry[0].split("(")[0] for entry in calls] == [
        "  ↳ archival_memory_search", "  ↳ conversation_search"], lines
    for entry in calls:
        # The first line is filled as the later ones are (to the width less their indent),
        # within a wide character.
        assert 34 < cell_len(entry[0]) <= 36 and len(entry) > 1, entry
        assert all(more.startswith("    ") and cell_len(more) <= 40 for more in entry[1:])
        # Closing punctuation stays with the character before it.
        assert not any(more.lstrip().startswith(("?", ")")) for more in entry[1:]), entry
        assert question in "".join(line.strip() for line in entry), entry
    # A line of words only still breaks only between words.
    assert break_offsets("one two three", 9) == [8]
    assert break_offsets("丸の内、一丁目", 6) == [2, 5]  # not before "、": after it


def test_replies_wrap_with_a_hanging_indent(memory: HierarchicalMemory) -> None:
    facts(memory)
    lines = shown(memory, 40, "What is my favourite seat on long flights these days?")
    reply = lines[lines.index("(offline, quoting memory)") + 1:]
    assert reply[0].startswith("- From core memory: ")
    assert len(reply) > 1 and all(more.startswith("  ") for more in reply[1:]), lines
    assert " ".join(" ".join(reply).split()) == (
        "- From core memory: User's favourite seat is a window seat on long flights")
    assert max(map(len, lines)) <= 40
    # An indented line of a model's reply keeps its indent, and wraps under its text.
    said = "Steps:\n    run the migration script before the deploy window opens"
    lines = shown(memory, 40, "How do I deploy?", ScriptedModel([reply_with(said)]))
    step = lines[lines.index("Steps:") + 1:]
    assert step[0].startswith("    run") and len(step) > 1
    assert all(more.startswith("      ") for more in step[1:]), lines


def test_a_reply_line_indented_past_half_the_width_wraps_with_no_blank_line(
        memory: HierarchicalMemory) -> None:
    # Its indent alone filled the first wrapped line: a blank line, then its words.
    said = "Steps:\n" + " " * 24 + "return compute(alpha, beta) + other(delta)\nDone."
    lines = shown(memory, 40, "How do I deploy?", ScriptedModel([reply_with(said)]))
    step = lines[lines.index("Steps:") + 1:lines.index("Done.")]
    assert step[0] == " " * 24 + "return", lines
    assert len(step) > 1 and all(more.startswith(" " * 20) and more.strip() for more in step)
    assert " ".join(" ".join(step).split()) == "return compute(alpha, beta) + other(delta)"
    assert max(map(len, lines)) <= 40


@pytest.mark.parametrize("said", [
    # Past the room later lines leave: "configurat" at column 36, 46 columns wide.
    " " * 36 + "configuration done",
    # Short of it, yet with no room for its first word: "c", then "onfiguration".
    " " * 19 + "configuration done and more",
    # A run without spaces: the indent alone on the first line, a blank line.
    " " * 19 + "東京に住む東京に住む"])
def test_an_indented_line_s_first_word_is_laid_out_whole_within_the_width(said: str) -> None:
    lines = reply_text(Console(width=40), said).plain.split("\n")
    assert max(map(cell_len, lines)) <= 40, lines
    assert lines[0].split() == said.split()[:len(lines[0].split())] and lines[0].strip(), lines
    assert " ".join(" ".join(lines).split()) == " ".join(said.split())


@pytest.mark.parametrize(("width", "said"), [
    # Its words start past the width less their indent: the line holds a word too wide.
    (40, "Steps:\n" + " " * 36 + "configuration done\nDone."),
    # Narrower than the least width a line is wrapped to, and a run written without spaces.
    (10, "- item " + "long " * 6 + "\n" + "東京に住む" * 4),
])
def test_a_laid_out_reply_is_printed_without_a_second_wrap(
        memory: HierarchicalMemory, width: int, said: str) -> None:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None)
    repl = ChatRepl(Agent(memory, ScriptedModel([reply_with(said)])), console=console,
                    errors=io.StringIO())
    repl.handle("tell me")
    laid_out = reply_text(console, said).plain
    # Rich wrapped the laid-out lines again: "conf" then "igurat" at column 0, and a
    # "long" and a "む" on lines of their own there.
    assert out.getvalue().endswith(laid_out + "\n"), out.getvalue()


def test_a_reply_printed_where_lines_are_not_wrapped_is_left_whole(
        memory: HierarchicalMemory) -> None:
    out = io.StringIO()
    said = "- From memory: " + "a long line of the reply " * 8
    repl = ChatRepl(Agent(memory, ScriptedModel([reply_with(said)])),
                    console=Console(file=out, width=40, soft_wrap=True, color_system=None),
                    errors=io.StringIO())
    repl.handle("tell me")
    assert said.rstrip() in out.getvalue().splitlines()


def test_the_banner_written_to_a_file_is_left_whole(memory: HierarchicalMemory) -> None:
    # `tiermem chat | tee chat.log`: lines written to a file are not broken at the
    # terminal's width, the banner's no more than a reply's.
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, LongNamedModel()),
                    console=Console(file=out, width=40, soft_wrap=True, color_system=None),
                    errors=io.StringIO())
    repl.banner()
    lines = out.getvalue().splitlines()
    assert f"tiermem agent default · model: {LongNamedModel.name}" in lines
    assert "/help for commands, /exit or Ctrl-D to leave" in lines


def test_the_leave_hint_and_a_cancelled_turn_s_notice_wrap_under_their_text(
        memory: HierarchicalMemory) -> None:
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, ScriptedModel([KeyboardInterrupt()])),
                    console=Console(file=out, width=30, color_system=None),
                    errors=io.StringIO())
    with create_pipe_input() as pipe:
        pipe.send_text("\x03hello\r\x04")  # Ctrl-C at an empty prompt, then a turn it cancels
        pipe.close()
        repl.run_interactive(session=PromptSession(input=pipe, output=DummyOutput()))
    lines = out.getvalue().splitlines()

    def shown(start: str) -> list[str]:
        first = lines.index(next(line for line in lines if line.startswith(start)))
        rest = next(i for i in range(first + 1, len(lines)) if not lines[i].startswith(" "))
        return lines[first:rest]

    for start, said in [("press", "press Ctrl-C again or type /exit to leave"),
                        ("cancelled;", "cancelled; your message is kept in recall as "
                                       "unanswered (Ctrl-C again or /exit to leave)")]:
        block = shown(start)
        assert " ".join(" ".join(block).split()) == said, block
        # Wrapped to the width, its later lines indented under its text, not at column 0.
        assert len(block) > 1 and max(map(len, block)) <= 30, block


def test_a_hit_cut_short_says_so(memory: HierarchicalMemory) -> None:
    url = "https://ci.example.com/pipelines/14/" + "very/long/path/" * 12
    memory.archival_insert(f"The deployment pipeline at {url} runs nightly.")
    memory.archival_insert("The deployment pipeline pages the ops channel.")
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, OfflinePolicy()),
                    console=Console(file=out, width=400, color_system=None),
                    errors=io.StringIO())
    repl.handle("/archival deployment pipeline")
    hits = {line.split()[0]: line for line in out.getvalue().splitlines()[1:]}
    cut, whole = hits["#1"], hits["#2"]
    # A URL cut at the hit's length must not read as the whole URL.
    assert cut.endswith("…") and len(cut) < len(url) + 40
    assert whole.endswith("The deployment pipeline pages the ops channel.")


def test_what_a_slash_command_says_wraps_under_its_text(memory: HierarchicalMemory) -> None:
    # /forget's hints after a request that matched nothing wrapped back to column 0, with
    # trailing spaces, while replies and hits hung under their text.
    lines = shown(memory, 40, "/forget a thing never said")
    assert lines[0].startswith("nothing forgotten (unmatched")
    hint = lines[next(i for i, line in enumerate(lines) if line.startswith("/recall TEXT")):]
    assert len(hint) > 1 and all(more.startswith("  ") for more in hint[1:]), lines
    assert all(line == line.rstrip() for line in lines) and max(map(len, lines)) <= 40
    assert "the forget mode to exact_then_top_k_llm in" in " ".join(" ".join(hint).split())
    lines = shown(memory, 40, "/policy")
    assert lines[0].startswith("no privacy policy: start the chat")
    assert len(lines) > 1 and all(more.startswith("  ") for more in lines[1:]), lines
    # Written where lines are not wrapped (a pipe), each is left whole.
    out = io.StringIO()
    ChatRepl(Agent(memory, OfflinePolicy()),
             console=Console(file=out, width=40, soft_wrap=True, color_system=None),
             errors=io.StringIO()).handle("/forget a thing never said")
    assert any(line.startswith("/recall TEXT") and line.endswith(")")
               for line in out.getvalue().splitlines()), out.getvalue()


class TerminalErrors(io.StringIO):
    """Standard error as a terminal."""

    def isatty(self) -> bool:
        return True


def test_errors_on_a_terminal_wrap_under_their_text(
        memory: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Usage lines, failed commands and tiermem: lines went out whole, so the terminal
    # wrapped them back to column 0, while replies hung under their text.
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("TERM", "xterm")
    errors = TerminalErrors()
    repl = ChatRepl(Agent(memory, OfflinePolicy()),
                    console=Console(file=io.StringIO(), width=40, color_system=None),
                    errors=errors)
    repl.interactive = True
    repl.handle("/forget")
    repl.handle(f"/snapshot {tmp_path / 'no such directory' / 'snapshot.json'}")
    repl.report_defect(ValueError("a detail long enough to need a second line"), "it went on")
    lines = re.sub(r"\x1b\[[0-9;]*m", "", errors.getvalue()).splitlines()
    starts = [i for i, line in enumerate(lines) if not line.startswith(" ")]
    assert [lines[i].split()[0] for i in starts] == ["usage:", "error:", "tiermem:"], lines
    assert len(lines) > 2 * len(starts) and max(map(len, lines)) <= 40, lines
    assert all(line == line.rstrip() for line in lines), lines
    text = " ".join(" ".join(lines).split())
    assert "--erase also erases it from every file)" in text and "please report this." in text
    # Piped, the same lines are left whole.
    piped = io.StringIO()
    ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=io.StringIO(), width=40),
             errors=piped).handle("/forget")
    assert piped.getvalue().count("\n") == 1 and len(piped.getvalue()) > 40
