"""The chat's searches (/archival and /recall: their options, pages and hits), and how
the slash commands (agent/slash_commands.py) print and report."""

from __future__ import annotations

import re
from typing import Protocol

from rich.console import Console

from tiermem.agent.chat_help import indented_line, print_laid_out, reply_text
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.search_counts import matches_counted, older_matches_hint, past_the_last
from tiermem.agent.terminal import escape
from tiermem.memory.text.padding import unmarked, unpadded
from tiermem.memory.tiers.lifecycle import SUPERSEDED_AT

#: Hits a page of /archival and /recall lists.
PAGE = 10
#: How much of a hit's text /recall and /archival show; a longer one ends in "…".
HIT_CHARS = 200


class ChatOutput(Protocol):
    """Where the commands print, and how they report a failure (``ChatRepl``)."""

    #: The agent's name, as the commands a report names need it.
    agent_name: str

    @property
    def console(self) -> Console:
        ...

    @property
    def error_console(self) -> Console:
        ...

    def usage(self, message: str) -> None:
        ...

    def fail(self, label: str, exc: Exception, hint: str | None = None) -> None:
        ...

    def report_defect(self, exc: Exception, outcome: str) -> None:
        ...

    def not_done(self, kind: str, message: str) -> None:
        ...


class SearchCommands:
    """/archival and /recall, for ``SlashCommands``, with the console they print to."""

    agent: Agent
    chat: ChatOutput

    @property
    def console(self) -> Console:
        # Read at each print: under --json the chat swaps in a buffer for each command.
        return self.chat.console

    def say(self, markup: str) -> None:
        """Print a line of what a command did or how to go on (``markup``), wrapped as a
        reply is: under its text at a narrow width, not back to column 0; whole where the
        console does not wrap (piped, or --json)."""
        print_laid_out(self.console, reply_text(self.console, markup))

    def search(self, name: str, arg: str) -> None:
        options = "[--all] [--page N]" if name == "/recall" else "[--page N]"
        # A tab or two spaces between them, as one; a mark that shows nothing at a word's
        # end ("\u2060--all") is no part of it, and one within an option ("--\u200ball") none of it.
        words = [word for word in map(unpadded, arg.split()) if word]
        everything, page = False, 1
        separated = False
        while words and unmarked(words[0]).startswith("--"):
            # "--ALL", typed with caps lock on, as "/RECALL" is
            option = unmarked(words.pop(0)).lower()
            if option.startswith("--page="):  # `--page=2`, as a command line takes it
                option, _, value = option.partition("=")
                words.insert(0, value)
            if option == "--":  # the query follows, even one that starts with --
                separated = True
                break
            if option == "--all" and name == "/recall":
                everything = True
            elif option == "--page" and words and re.fullmatch(r"[1-9][0-9]{0,5}", words[0]):
                page = int(words.pop(0))
            else:
                self.chat.usage(f"usage: {name} {options} QUERY (N: a page number from 1; "
                                f"-- before a query that starts with --)")
                return
        if not separated:
            # Options typed after the query (`/recall deploy --all`) are options too, as
            # on a command line; `--` before the query keeps them as words.
            everything, page = self._trailing_options(name, words, everything, page)
        query = " ".join(words).strip()
        if not query:
            self.chat.usage(f"usage: {name} {options} QUERY")
            return
        memory = self.agent.memory
        if name == "/archival":
            result = memory.archival_search(query, k=PAGE, page=page)
        else:
            result = memory.recall_search(query, k=PAGE, page=page, roles=None if everything
                                          else self.recall_roles())
        if page > max(result.pages, 1):
            self.chat.usage(past_the_last(result, name == "/recall"))
            return
        self.say(f"{matches_counted(result, name == '/recall')} (page {page} of {result.pages})")
        # A message whose turn was cancelled or failed is ``unanswered`` (``pending`` while
        # its turn runs, or until a chat cut short is next opened); ``ok`` goes unsaid.
        statuses = {row["id"]: row["status"] for row in memory.recall.rows(
            [hit.id for hit in result.hits])} if name == "/recall" else {}
        for hit in result.hits:
            extra = ""
            # A retired fact was evicted too; saying so would read as a fact still true.
            if isinstance(hit.metadata.get(SUPERSEDED_AT), (int, float)):
                extra = " [dim](superseded)[/dim]"
            elif hit.evicted_at is not None:
                extra = " [dim](evicted from core)[/dim]"
            status = statuses.get(hit.id, "ok")
            who = f"{hit.role}{'' if status == 'ok' else f' ({status})'}: " if hit.role else ""
            line = " ".join(hit.text.split())  # one line per hit, however the text was laid out
            if len(line) > HIT_CHARS:  # marked as cut: a URL cut short must not read as whole
                line = line[:HIT_CHARS].rstrip() + "…"
            # Wrapped under the hit's text at a narrow width, not back to column 0.
            print_laid_out(self.console, indented_line(
                self.console, f"  #{hit.id} {escape(who + line)}{extra}"))
        if page < result.pages:
            # A query typed after "--" goes after it again, or its words may read as options.
            more = (f"{name}{' --all' if everything else ''} --page {page + 1} "
                    f"{'-- ' if separated else ''}{query}")
            self.say(f"[dim]next: {escape(more)}[/dim]")
        older = older_matches_hint(result, name == "/recall")
        if older is not None:
            self.say(f"[dim]{older}[/dim]")

    @staticmethod
    def _trailing_options(name: str, words: list[str], everything: bool, page: int
                          ) -> tuple[bool, int]:
        """Take ``--all`` and ``--page N`` (or ``--page=N``) off the end of ``words`` (the
        query stays)."""
        while len(words) > 1:
            last = unmarked(words[-1]).lower()  # in any case, as before the query
            if last == "--all" and name == "/recall":
                everything = True
                del words[-1]
            elif (len(words) > 2 and unmarked(words[-2]).lower() == "--page"
                  and re.fullmatch(r"[1-9][0-9]{0,5}", last)):
                page = int(last)
                del words[-2:]
            elif last.startswith("--page=") and re.fullmatch(
                    r"[1-9][0-9]{0,5}", last.removeprefix("--page=")):
                page = int(last.removeprefix("--page="))
                del words[-1]
            else:
                break
        return everything, page

    def recall_roles(self) -> list[str]:
        """What /recall lists by default: what was said. The offline policy's replies only
        quote memory back, so with it that is what the user said."""
        return ["user"] if isinstance(self.agent.llm, OfflinePolicy) else ["user", "assistant"]
