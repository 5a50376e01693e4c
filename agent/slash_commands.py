"""The chat's slash commands (/core, /archival, /recall, /forget, /policy, ...): what each
prints and how each is used wrongly.

``ChatRepl`` (agent/repl.py) owns the session: it hands each line that ``is_command``
takes for a command to ``SlashCommands.run`` and gives it the console to print to, which
it swaps for a buffer under --json, and the ways to report a failure, which count toward
the exit status. A command used wrongly (unknown, missing its argument, or given words it does
not take) is reported as a usage error, so a script's typo shows.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from tiermem.agent.chat_help import HELP as HELP  # re-exported: the README's checks read it
from tiermem.agent.chat_help import (
    core_view,
    glued_forget,
    help_text,
    nearest_commands,
    print_laid_out,
    reply_text,
)
from tiermem.agent.chat_history import SessionHistory, StoredHistory
from tiermem.agent.closed_streams import is_output_failure
from tiermem.agent.forget_sources import (
    ALREADY_FORGOTTEN,
    LEARNED_FROM,
    QUOTED_BY_USER,
    UNMATCHED_HINT,
    WITHHELD_HINT,
    erased_before,
    over_the_bound_hint,
    sources_kept_lines,
)
from tiermem.agent.judge import judge_failure
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.server_options import HOW_TO_NAME_A_MODEL
from tiermem.agent.slash_search import ChatOutput, SearchCommands
from tiermem.agent.terminal import escape
from tiermem.memory.errors import (
    ForgetRequestTooLongError,
    InvalidConfigError,
    JudgeMissingError,
    TiermemError,
)
from tiermem.memory.ops.forget import forgot_before
from tiermem.memory.ops.forget_select import OVER_THE_BOUND
from tiermem.memory.text.counts import counted
from tiermem.memory.text.padding import marks_shown, unmarked, unpadded
from tiermem.user_paths import expanded


def is_command(text: str) -> bool:
    """Whether a line of chat input is a slash command: its first word starts with "/"
    and holds no other "/". A path such as /var/log opens a message, not a command."""
    first = text.split(maxsplit=1)[0] if text.strip() else ""
    return first.startswith("/") and "/" not in first[1:]


def first_word(text: str) -> tuple[str, str]:
    """``text``'s first word and what follows it, split at the first run of whitespace (a
    tab, as piped input may hold, as a space): ``/archival<TAB>tea`` is /archival of tea."""
    parts = text.split(maxsplit=1)
    return (parts[0] if parts else ""), (parts[1] if len(parts) > 1 else "")


class ForgetFailedError(TiermemError):
    """A /forget request whose matching failed (its judge's model erred): nothing was
    forgotten, and the request should be made again."""


#: The options of /forget.
_FORGET_OPTIONS = ("--erase", "--erase-forgotten")

#: The slash commands that take no argument.
_NO_ARGUMENT = frozenset({"/exit", "/quit", "/help", "/model", "/core", "/diagnostics"})


class SlashCommands(SearchCommands):
    """The slash commands of one chat session over an ``Agent``."""

    def __init__(self, agent: Agent, chat: ChatOutput, home: Path | None = None,
                 store: str | None = None) -> None:
        self.agent = agent
        self.chat = chat
        #: Where the agent's policy.yaml is read from (with --store too), for /policy.
        self.home = home
        self.store = store  # the --store given, for the commands /diagnostics names
        #: The interactive prompt's history (``ChatRepl.run_interactive``): with
        #: --no-history it holds this session's lines, which /history clear empties too.
        self.session_history: object = None

    def run(self, text: str) -> bool:
        """Run one slash command; False means the session should end."""
        typed, arg = first_word(text)
        # /EXIT, /Core: typed with caps lock on; "/forget\u2060": a mark that shows nothing.
        name, arg = unmarked(typed).lower(), arg.strip()
        memory = self.agent.memory
        if name in _NO_ARGUMENT and arg:
            # Ignoring the extra words would hide a typo (`/core facts`, `/exit now`).
            self.chat.usage(f"usage: {name} (it takes nothing after it)")
            return True
        try:
            if name in ("/exit", "/quit"):
                return False
            if name == "/help":
                self.console.print(help_text(self.console.width), markup=False,
                                   highlight=False)
            elif name == "/model":
                self.say(f"model: {escape(self.agent.llm.name)} "
                         f"(context window {self.agent.llm.context_window} tokens)")
            elif name == "/core":
                self.show_core()
            elif name in ("/archival", "/recall"):
                self.search(name, arg)
            elif name == "/diagnostics":
                from tiermem.agent.diagnostics_command import command_line_advice
                from tiermem.memory.ops.report import print_text

                report = memory.diagnostics()
                command_line_advice(report, self.chat.agent_name, self.store,
                                    memory.embedder.id)
                print_text(self.console, report)
            elif name == "/snapshot":
                if not arg:
                    self.chat.usage("usage: /snapshot FILE")
                    return True
                path = expanded(arg)
                from tiermem.agent.store_commands import snapshot_progress

                errors = self.chat.error_console
                # Written a row at a time, so a memory of any size takes bounded memory; a
                # long one says how far it is on standard error.
                memory.write_snapshot(path, progress=snapshot_progress(
                    lambda line: print_laid_out(errors, reply_text(
                        errors, escape(f"tiermem: {line}")))))
                self.say(f"snapshot written to {escape(str(path))}")
                if memory.privacy is not None:
                    # A snapshot is the memory: the policy is a file of its own, which a
                    # restore into another agent does not bring back by itself.
                    self.say("the privacy policy is not in it: a snapshot holds the memory, so "
                             "an agent restored from it elsewhere needs the policy file "
                             "(policy.yaml) copied into its home")
            elif name == "/forget" or name.startswith("/forget--") or glued_forget(typed):
                # "/forget\u2060--erase X" shows as "/forget--erase X" (and "/forget\u2060my
                # PIN" as "/forgetmy PIN"): refused as a request, not an unknown command.
                spaced = name == "/forget"
                self.forget(arg if spaced else f"{name[len('/forget'):]} {arg}", text, spaced)
            elif name == "/policy":
                self.policy(arg)
            elif name == "/history":
                if unmarked(arg).lower() != "clear":
                    self.chat.usage("usage: /history clear")
                    return True
                own = self._own_line_kept(text)
                erased = memory.prompt_history.clear()
                if isinstance(self.session_history, SessionHistory):
                    erased += self.session_history.clear()
                    old = self.session_history.old_file
                    if old is not None:  # an older version's file left in place: emptied
                        old.rewrite(lambda lines: [])
                erased -= own  # the prompt kept this command's line: it was not there before
                self.say(f"erased {counted(erased, 'line')} of prompt history")
                self.old_file_news()
            else:
                near = nearest_commands(name)
                meant = f" (did you mean {' or '.join(near)}?)" if near else ""
                self.chat.usage(f"unknown command {marks_shown(typed)}{meant}; /help lists them")
        except TiermemError as exc:
            self.chat.fail("error", exc)
        except Exception as exc:
            if is_output_failure(exc):
                raise
            self.chat.report_defect(exc, f"the command {name} failed")
        return True

    def _own_line_kept(self, text: str) -> int:
        """1 when the interactive prompt's history kept ``text``, the command being run, as
        its newest line (a piped chat keeps no lines, and a database that refused the line
        has not got it), else 0."""
        history = self.session_history
        if isinstance(history, SessionHistory):
            lines = history.get_strings()
        elif isinstance(history, StoredHistory) and not history.failed:
            lines = self.agent.memory.prompt_history.lines()
        else:
            return 0
        return int(bool(lines) and unpadded(lines[-1]) == unpadded(text))

    def forget(self, request: str, line: str, spaced: bool = True) -> None:
        # "/FORGET --ERASE X", typed with caps lock on, erases, as "\u2060--erase X" does: a
        # mark that shows nothing is no reason to forget "--erase X" instead of erasing X.
        first, rest = first_word(unpadded(request))
        first = unmarked(first).lower()
        memory = self.agent.memory
        # "--erase\u2060my PIN" (or "/forget\u2060--erase"), the option joined to what
        # is next to it, would forget "--erasemy PIN" and keep the PIN; so it is refused.
        glued = first.startswith("--erase") and first not in _FORGET_OPTIONS
        if glued or first != "--erase-forgotten" or rest.strip():
            # The line quotes what is forgotten, or meant to be: it leaves the up-arrow
            # history, whether the request is made or refused as a usage error.
            memory.prompt_history.forget([line])
            if isinstance(self.session_history, SessionHistory):  # --no-history keeps it here
                self.session_history.forget([line])
        if not spaced or glued:
            self.chat.usage(
                "usage: /forget --erase-forgotten, with a space after /forget (nothing erased)"
                if first == "--erase-forgotten" else
                "usage: /forget --erase TEXT, with a space on each side of --erase (nothing "
                "forgotten)" if first.startswith("--erase") else
                "usage: /forget [--erase] TEXT, with a space after /forget (nothing forgotten)")
            return
        if first == "--erase-forgotten":
            if rest.strip():  # not text to forget: the whole request would be audited as one
                self.chat.usage("usage: /forget --erase-forgotten (it takes nothing after it)")
                return
            report = memory.erase_forgotten()
            self.say(escape(erased_before(report)))
            self.old_file_news()
            return
        erase = first == "--erase"
        # As a message is sent: without the marks of no width at its ends ("\u2060my PIN").
        request = unpadded(rest if erase else request)
        if not request:
            self.chat.usage("usage: /forget [--erase] TEXT (the exact text of what to forget; "
                       "--erase also erases it from every file)")
            return
        try:
            result = memory.forget(request, erase=erase)
        except ForgetRequestTooLongError as exc:
            # The library's remedy (HierarchicalMemory.erase) is no use in a chat either.
            self.chat.fail("error", ForgetFailedError(f"nothing forgotten: {exc.situation}"),
                           "a longer text is forgotten in mode exact, which needs no model: "
                           "set `mode: exact` under `forget:` in the chat's policy file and "
                           "give the text whole as stored (/core, /archival TEXT and "
                           f"/recall TEXT show it{self._withheld_hint()}), or run `tiermem "
                           "forget --mode exact -` with the text on standard input")
            return
        except JudgeMissingError as exc:
            # The library's remedies (judge=ModelJudge(client)) are no use in a chat.
            self.chat.fail("error", ForgetFailedError(
                f"nothing forgotten: the forget mode {exc.mode!r} {exc.asks}, and this chat "
                f"has none"), f"start the chat with {HOW_TO_NAME_A_MODEL}, or set `mode: "
                f"exact` under `forget:` in the chat's policy file")
            return
        self.agent.context.blank(set(result.forgotten.messages))
        if result.outcome == "matched":
            self.say(f"{'erased' if erase else 'forgotten'}: {result.in_words()}")
            self.old_file_news()
            command = "/forget --erase" if erase else "/forget"
            for ids, header in ((result.sources_kept, LEARNED_FROM),
                                (result.quoted_by_user, QUOTED_BY_USER)):
                for hint in sources_kept_lines(memory, ids, lambda text: f"{command} {text}",
                                               f"{command} and its whole text", "/recall",
                                               header=header):
                    self.say(escape(hint))
        elif result.outcome == "failed":
            # The request was not carried out: a script must see it fail (exit status 1,
            # ``error`` under --json), not read it as nothing to forget.
            self.chat.fail("error", ForgetFailedError(
                f"nothing forgotten ({result.outcome}: {result.detail})"),
                judge_failure(memory.judge))
        elif (done_by := None if result.outcome != "unmatched" else forgot_before(
                memory, request, result.audit_id)) is not None:
            said = ALREADY_FORGOTTEN.format(done_by=done_by, audit="")
            self.say(escape(said))
            self.chat.not_done("nothing_forgotten", said)
        else:
            said = f"nothing forgotten ({result.outcome}: {result.detail})"
            self.say(escape(said))
            if result.outcome == "unmatched" and result.mode == "exact":
                self.say(escape(UNMATCHED_HINT.format(withheld=self._withheld_hint())))
            elif result.outcome == "ambiguous" and OVER_THE_BOUND in result.detail:
                self.say(escape(over_the_bound_hint(memory.forget_config.max_delete_count,
                                                    result.detail)))
            # A script must see that nothing went, as `tiermem forget` exits 1 for it.
            self.chat.not_done("nothing_forgotten", said)

    def old_file_news(self) -> None:
        """Say what a forget did to an older version's history file left in place."""
        history = self.session_history
        old = history.old_file if isinstance(history, SessionHistory) else None
        news = old.news() if old is not None else None
        if news is not None:
            self.say(escape(news))

    def _withheld_hint(self) -> str:
        """What a hint naming /core and the searches must add under a privacy policy that
        withholds things from them ("" under none)."""
        privacy = self.agent.memory.privacy
        return WITHHELD_HINT if privacy is not None and privacy.recall_enabled else ""

    def policy(self, arg: str) -> None:
        memory = self.agent.memory
        verb, rest = first_word(arg)
        verb = verb.lower()
        changing = (verb == "set" and rest.strip()) or (verb == "clear" and not rest.strip())
        if arg and not changing:
            self.chat.usage("usage: /policy, /policy set STATEMENT | STATEMENT, /policy clear")
            return
        where = str(self.home) if self.home is not None else "the agent home"
        start = f"start the chat with --policy FILE, or put policy.yaml in {where}"
        if memory.privacy is None:
            if changing:  # the library's refusal names privacy=, which a chat has no use for
                self.chat.fail("error", InvalidConfigError(
                    f"this chat has no privacy policy to change: {start}", ("privacy",)))
            else:
                self.say(f"no privacy policy: {escape(start)}")
            return
        if verb == "set":
            statements = [s.strip() for s in rest.split("|")]
            rules = memory.privacy.config.retention.policy_rules or {}
            mode = memory.privacy.config.retention.mode
            unruled = [s for s in statements if s and s not in rules] if mode != "llm" else []
            if unruled:
                # The library's "or use retention.mode: llm" is no use offline, and a chat
                # reads its policy file as it starts.
                llm = "" if isinstance(self.agent.llm, OfflinePolicy) else \
                    ", or set retention.mode: llm there"
                self.chat.fail("error", InvalidConfigError(
                    f"retention statement {unruled[0]!r} has no rules in "
                    f"retention.policy_rules, so {mode} mode cannot enforce it",
                    ("retention.policy_rules",)),
                    f"add its rules there in the policy file (keyed by the exact statement)"
                    f"{llm}, and start the chat again")
                return
            memory.set_retention_policy(statements)
        elif verb == "clear":
            memory.set_retention_policy([])
        active = memory.privacy.policies
        self.say("retention statements: " + (
            "; ".join(escape(s) for s in active) if active else "none"))
        if changing:
            # Set for the session only: the next chat reads the policy file again.
            self.say("[dim](for this session; the policy file is unchanged)[/dim]")

    def show_core(self) -> None:
        memory = self.agent.memory
        # As the prompt shows core: a fact the privacy policy withholds as [withheld: ...],
        # as /archival and /recall leave it out.
        rows = [(str(fact.id), text, fact.durability, str(fact.access_count),
                 f"{memory.fact_score(fact):.3f}") for fact, text in memory.core_shown()]
        title = f"core {memory.core.used}/{memory.core.limit} {memory.core.unit}"
        view = core_view(self.console, title, rows)
        # The list a narrow width gets is laid out; a table is laid out by rich, and piped
        # keeps the console's own soft wrap: its title is not centred in trailing spaces.
        self.console.print(view, soft_wrap=True if isinstance(view, Text) else None)
