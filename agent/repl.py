"""The chat REPL: prompt-toolkit input, rich output, slash commands.

Input and output are injectable: ``ChatRepl(agent, console=..., session=...)``
runs under a prompt-toolkit pipe input in tests, and ``run_piped`` reads plain
lines when standard input is not a terminal, so chats can be scripted.

A turn or command that fails never ends the session. Provider errors and the
other expected errors (``TiermemError``) are shown in the chat; any other
exception is a defect, reported as one line on standard error (``errors``)
while the session goes on. ``KeyboardInterrupt`` and ``SystemExit`` are not
caught here.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agent.errors import ProviderError
from agent.loop import Agent, TurnResult
from memory.errors import TiermemError
from memory.output_file import write_atomic
from tools.safe_text import safe_text

HELP = """\
Commands:
  /core              core facts with durability, access count and score
  /archival QUERY    search archival memory
  /recall QUERY      search the conversation history
  /diagnostics       memory health report and red flags
  /snapshot FILE     write a JSON snapshot of the whole memory
  /model             which model (or the offline policy) is answering
  /help              this help
  /exit              leave (Ctrl-D and Ctrl-C work too)"""


class ChatRepl:
    """One chat session over an ``Agent``."""

    def __init__(self, agent: Agent, console: Console | None = None,
                 agent_name: str = "default", errors: TextIO | None = None) -> None:
        self.agent = agent
        self.console = console or Console()
        self.agent_name = agent_name
        self.errors = errors

    # -- loops ----------------------------------------------------------------------------
    def banner(self) -> None:
        memory = self.agent.memory
        self.console.print(
            f"[bold]tiermem[/bold] agent [cyan]{escape(self.agent_name)}[/cyan] · model: "
            f"{escape(self.agent.llm.name)} · core {memory.core.used}/{memory.core.limit} "
            f"{memory.core.unit}, {len(memory.archival)} archival, {len(memory.recall)} recall"
        )
        self.console.print("[dim]/help for commands, /exit or Ctrl-D to leave[/dim]")

    def run_piped(self, lines: Iterable[str]) -> int:
        """Handle each line of non-interactive input; returns the exit status."""
        for line in lines:
            if not self.handle(line.rstrip("\n")):
                break
        return 0

    def run_interactive(self, history_file: Path | None = None, session: Any = None) -> int:
        """Prompt until /exit, Ctrl-D or Ctrl-C; returns the exit status."""
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, InMemoryHistory

        if session is None:
            history = FileHistory(str(history_file)) if history_file else InMemoryHistory()
            session = PromptSession(history=history)
        self.banner()
        while True:
            try:
                line = session.prompt("you> ")
            except (EOFError, KeyboardInterrupt):
                self.console.print("[dim]bye[/dim]")
                return 0
            if not self.handle(line):
                return 0

    # -- one line -------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Process one input line; False means the session should end."""
        text = line.strip()
        if not text:
            return True
        if text.startswith("/"):
            return self.command(text)
        try:
            result = self.agent.step(text)
        except ProviderError as exc:
            self.console.print(f"[red]model error:[/red] {escape(safe_text(str(exc)))}")
            then = ("when the model is reachable" if exc.retryable
                    else "after fixing what the error says")
            self.console.print(f"[dim]your message is saved in recall as unanswered; send it "
                               f"again {then}[/dim]")
            return True
        except TiermemError as exc:
            self.console.print(f"[red]error:[/red] {escape(safe_text(str(exc)))}")
            return True
        except Exception as exc:
            self.report_defect(exc, "this turn was not completed and its memory changes were "
                                    "rolled back")
            return True
        try:
            self.show_turn(result)
        except Exception as exc:
            self.report_defect(exc, "the turn was saved but could not be shown; /recall finds it")
        return True

    def report_defect(self, exc: Exception, outcome: str) -> None:
        """One line on standard error for an exception that should not have happened."""
        detail = " ".join(safe_text(str(exc)).split())[:300]
        line = (f"tiermem: internal error ({type(exc).__name__}: {detail}); {outcome}. "
                "The session goes on; please report this.\n")
        stream = self.errors or sys.stderr
        try:
            stream.write(line)
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed or broken stderr must not end the session either

    def show_turn(self, result: TurnResult) -> None:
        """Tool calls and memory changes dimmed and compact, then the reply."""
        for outcome in result.tool_results:
            if not outcome.ok:
                self.console.print(f"[yellow]  ↳ {escape(outcome.name)}: "
                                   f"{escape(outcome.content[:160])}[/yellow]")
            elif outcome.name.endswith("search") and isinstance(outcome.value, dict):
                found = outcome.value
                self.console.print(f"[dim]  ↳ {escape(outcome.name)}({escape(found['query'][:60])})"
                                   f": {found['total']} matches[/dim]")
        for change in result.memory_changes:
            self.console.print(f"[dim]  · {escape(change[:160])}[/dim]")
        if result.reply:
            self.console.print(escape(result.reply))
        if result.notice:
            self.console.print(f"[yellow]{escape(result.notice)}[/yellow]")
        if result.usage.total_tokens:
            self.console.print(f"[dim]  tokens: {result.usage.prompt_tokens} in, "
                               f"{result.usage.completion_tokens} out[/dim]")

    def command(self, text: str) -> bool:
        name, _, arg = text.partition(" ")
        arg = arg.strip()
        memory = self.agent.memory
        try:
            if name in ("/exit", "/quit"):
                return False
            if name == "/help":
                self.console.print(HELP)
            elif name == "/model":
                self.console.print(f"model: {escape(self.agent.llm.name)} "
                                   f"(context window {self.agent.llm.context_window} tokens)")
            elif name == "/core":
                self.show_core()
            elif name in ("/archival", "/recall"):
                if not arg:
                    self.console.print(f"usage: {name} QUERY")
                    return True
                result = (memory.archival_search(arg, k=10) if name == "/archival"
                          else memory.recall_search(arg, k=10))
                count = (f"{result.total}" if result.total_exact
                         else f"at least {result.total} (the newest ranked)")
                self.console.print(f"{count} matches (page 1 of {result.pages})")
                for hit in result.hits:
                    extra = " [dim](evicted from core)[/dim]" if hit.was_in_core else ""
                    who = f"{hit.role}: " if hit.role else ""
                    self.console.print(f"  #{hit.id} {escape(who + hit.text[:200])}{extra}")
            elif name == "/diagnostics":
                report = memory.diagnostics()
                self.console.print_json(json.dumps(report, default=str))
            elif name == "/snapshot":
                if not arg:
                    self.console.print("usage: /snapshot FILE")
                    return True
                path = Path(arg).expanduser()
                write_atomic(path, json.dumps(memory.snapshot()))
                self.console.print(f"snapshot written to {escape(str(path))}")
            else:
                self.console.print(f"unknown command {escape(name)}; /help lists them")
        except (TiermemError, OSError) as exc:
            self.console.print(f"[red]error:[/red] {escape(safe_text(str(exc)))}")
        except Exception as exc:
            self.report_defect(exc, f"the command {name} failed")
        return True

    def show_core(self) -> None:
        memory = self.agent.memory
        table = Table(title=f"core {memory.core.used}/{memory.core.limit} {memory.core.unit}")
        for column in ("id", "fact", "durability", "accesses", "score"):
            table.add_column(column)
        for fact in memory.core:
            table.add_row(str(fact.id), escape(fact.text), fact.durability,
                          str(fact.access_count), f"{memory.fact_score(fact):.3f}")
        self.console.print(table)
