"""/forget lines: one refused as a usage error leaves the prompt history too (the words after
it may be the text its user meant to forget), and a request is read as a message is sent.
A command holding a mark of no width is shown with it."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest
from leak_helpers import read_paths_showing
from rich.console import Console

from tests.test_chat_history import run_chat
from tests.test_repl import errors_of, make_repl
from tiermem.agent.chat_history import chat_history
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import ChatRepl
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize("keep", [True, False], ids=["stored", "--no-history"])
def test_a_forget_line_refused_as_a_usage_error_leaves_the_history(
        tmp_path: Path, keep: bool) -> None:
    typed = ("/core\r/forget --erase-forgotten my PIN is 8675309\r"
             "/FORGET --ERASE-FORGOTTEN my code is 4417\r/forget --erase-forgotten\r\x04")
    with HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder()) as memory:
        history = chat_history(None, memory.prompt_history, keep, io.StringIO())
        errors = io.StringIO()
        run_chat(memory, history, typed, errors)
        assert errors.getvalue().count("usage: /forget --erase-forgotten") == 2

        async def lines() -> list[str]:
            return [line async for line in history.load()]

        # The command alone holds no text: the up arrow may bring it back.
        assert asyncio.run(lines()) == ["/forget --erase-forgotten", "/core"]
        assert memory.prompt_history.lines() == (
            ["/core", "/forget --erase-forgotten"] if keep else [])


@pytest.mark.parametrize("typed", ["\u2060my PIN is 8675309\u2060",
                                   " \u200bmy PIN is 8675309 \ufeff"])
@pytest.mark.parametrize("erase", ["", "--erase "])
def test_a_forget_request_between_marks_of_no_width_matches_the_message_sent_without_them(
        typed: str, erase: str) -> None:
    # The message was sent as "my PIN is 8675309"; the request kept its marks, matched
    # nothing ("nothing forgotten (unmatched ...)") and left the PIN in memory.
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        repl, out = make_repl(memory)
        assert repl.run_piped([typed, f"/forget {erase}{typed}"]) == 0
        assert f"{'erased' if erase else 'forgotten'}: 1 fact" in out.getvalue()
        assert memory.facts() == [] and memory.recall_search("PIN", k=5).hits == []
        if erase:
            assert read_paths_showing(memory, "8675309") == []


@pytest.mark.parametrize("option", ["\u2060--erase", "\u200b --erase", "--\u200berase",
                                    "--erase\u2060", "\ufeff--ERASE"])
def test_an_erase_option_beside_a_mark_of_no_width_erases(option: str) -> None:
    # Read as a plain forget of "--erase my PIN is 8675309", it matched nothing and the PIN
    # stayed, its text in every file the user asked to erase it from.
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        repl, out = make_repl(memory)
        assert repl.run_piped(["my PIN is 8675309", f"/forget {option} my PIN is 8675309",
                               "/forget \u2060--erase-forgotten"]) == 0
        said = out.getvalue()
        assert "erased: 1 fact" in said and "nothing forgotten" not in said
        assert "nothing to erase: no row forgotten before is still stored" in said
        assert memory.facts() == [] and read_paths_showing(memory, "8675309") == []


def test_a_command_name_or_history_clear_beside_a_mark_of_no_width_runs() -> None:
    # "/forget\u2060" was "unknown command /forget\u2060" and "/history \u2060clear" its usage.
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        repl, out = make_repl(memory)
        assert repl.run_piped(["my PIN is 8675309", "/forget\u2060 --erase my PIN is 8675309",
                               "/history \u2060clear"]) == 0
        said = out.getvalue()
        assert "erased: 1 fact" in said and "erased 0 lines of prompt history" in said
        assert "unknown command" not in said and "usage" not in said
        assert memory.facts() == [] and read_paths_showing(memory, "8675309") == []


@pytest.mark.parametrize(("line", "usage"), [
    ("/forget --erase\u2060my PIN is 8675309", "usage: /forget --erase TEXT, with a space on"),
    ("/forget --erase\u200bmy PIN is 8675309", "usage: /forget --erase TEXT, with a space on"),
    ("/forget\u2060--erase my PIN is 8675309", "usage: /forget --erase TEXT, with a space on"),
    ("/forget\ufeff--ERASE-FORGOTTEN", "usage: /forget --erase-forgotten, with a space after"),
    ("/forget\u200b--erase\u2060my PIN is 8675309", "usage: /forget --erase TEXT, with a")])
def test_a_forget_option_joined_by_a_mark_of_no_width_is_refused_naming_it(
        line: str, usage: str) -> None:
    # It shows as "--erasemy PIN" or "/forget--erase": read as a plain forget of
    # "--erasemy PIN is 8675309", or called an unknown command, an erasure was asked and
    # nothing said that the option was not read.
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        repl, out = make_repl(memory)
        assert repl.run_piped(["my PIN is 8675309", line]) == 1
        assert usage in errors_of(repl) and "unknown command" not in errors_of(repl)
        assert "forgotten:" not in out.getvalue() and "nothing forgotten (" not in out.getvalue()
        assert [f.text for f in memory.facts()] == ["User's PIN is 8675309"]


@pytest.mark.parametrize("line", ["/forget\u2060my PIN is 8675309", "/FORGET\u200bmy PIN",
                                  "/forget\ufeffmy"])
def test_forget_joined_to_its_text_by_a_mark_of_no_width_is_refused_as_forget(line: str) -> None:
    # It shows as "/forgetmy PIN": before, "unknown command /forget\u2060my", the first word
    # of what was to be forgotten echoed glued to the command's name.
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        repl, out = make_repl(memory)
        assert repl.run_piped(["my PIN is 8675309", line]) == 1
        said = errors_of(repl)
        assert "usage: /forget [--erase] TEXT, with a space after /forget (nothing forgotten)" \
            in said and "unknown command" not in said and "my" not in said, said
        assert [f.text for f in memory.facts()] == ["User's PIN is 8675309"]
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        out = io.StringIO()
        repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                        agent_name="tester", errors=io.StringIO(), json_lines=True)
        assert repl.run_piped([line]) == 1
        records = [json.loads(row) for row in out.getvalue().splitlines()]
        assert [r["command"] for r in records if "command" in r] == ["/forget"], records


@pytest.mark.parametrize(("line", "said"), [
    ("/core\u2060x", "unknown command /core\\u2060x (did you mean /core?); /help lists them"),
    ("/Frob\u200bnicate", "unknown command /Frob\\u200bnicate; /help lists them")])
def test_an_unknown_command_shows_the_mark_of_no_width_it_holds(line: str, said: str) -> None:
    # Before, "unknown command /core\u2060x" printed the mark as typed, invisible: the
    # command named seemed to be "/corex".
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        repl, _ = make_repl(memory)
        assert repl.run_piped([line]) == 1
        assert errors_of(repl).splitlines() == [said]
