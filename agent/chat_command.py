"""``tiermem chat``: a session with an agent, in a terminal or fed through a pipe.

With a model configured (``--model``/``--base-url``, or TIERMEM_MODEL and
OPENAI_BASE_URL) the model drives the memory tools, and also judges which items
a forget request in an LLM mode targets; with none, or with ``--offline``, the
rule-based offline policy does. Standard input that is not a terminal (or
``--json``) is read one message or /command per line.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from typing import Any


def cmd_chat(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    from tiermem.agent.chat_history import adopt_history_file, chat_history
    from tiermem.agent.chat_reports import AFTER_STORE_LOST
    from tiermem.agent.forget_command import forget_config
    from tiermem.agent.interrupted import work_done
    from tiermem.agent.interrupts import (
        InterruptReported,
        SecondSignals,
        Terminated,
        terminate_on_signals,
    )
    from tiermem.agent.judge import ModelJudge
    from tiermem.agent.line_input import decoded_lines
    from tiermem.agent.loop import Agent
    from tiermem.agent.offline import OfflinePolicy
    from tiermem.agent.place import agent_place
    from tiermem.agent.policy_file import session_judge, session_policy
    from tiermem.agent.repl import ChatRepl
    from tiermem.agent.server_options import config_from_args, model_flag_conflict, open_client
    from tiermem.agent.settings import session_embedder
    from tiermem.agent.terminal import TerminalConsole
    from tiermem.memory.text.shown import shown_path

    conflict = model_flag_conflict(args)
    if conflict is not None:
        note(conflict)
        return 2
    if sys.stdin is None:  # `<&-`
        note("standard input is closed; pipe the messages to `tiermem chat`, or run it in a "
             "terminal")
        return 2
    place = agent_place(args.agent, args.store)
    # Piped output is read by programs: lines are not broken at 80 columns.
    console = TerminalConsole(soft_wrap=not sys.stdout.isatty())
    ended = False  # the session is over: what is left is closing the memory
    repl: ChatRepl | None = None
    second_signals = SecondSignals()
    try:
        # The memory closes outside the signals' handling, as after any session: a signal
        # there ends the program at once, and one that ended the session is then ignored.
        with contextlib.ExitStack() as opened, second_signals.ignored_after(), \
                terminate_on_signals():
            config = None if args.offline else config_from_args(args)
            privacy, policy_file = session_policy(place.home, args.policy)
            piped = args.json or not sys.stdin.isatty()
            llm = open_client(config, note, lambda text: note(
                f"{text}; {wait_cancel(repl.running if repl is not None else None, piped)}")) \
                if config else OfflinePolicy()
            # The chat model also judges which items a forget request in an LLM mode targets.
            judge = session_judge(privacy, policy_file, llm if config else None) or (
                ModelJudge(llm) if config else None)
            if policy_file is not None:
                note(f"privacy policy {shown_path(policy_file)}")
            opened.enter_context(place.in_use(note))
            # --core-limit holds for this session; `tiermem config` is how a setting is
            # stored.
            memory = opened.enter_context(place.open_memory(
                core_limit=args.core_limit,
                embedder=session_embedder(place, args.embedder, True),
                store_settings=False, privacy=privacy, judge=judge,
                forget=forget_config(place.home, args.policy)))
            _note_session_settings(memory, args.agent, args.store, note)
            repl = ChatRepl(Agent(memory, llm), console=console, agent_name=args.agent,
                            json_lines=args.json, home=place.home, store=args.store)
            if piped:
                adopt_history_file(place.files_home, memory.prompt_history, note)
                code = repl.run_piped(decoded_lines(sys.stdin.buffer, sys.stderr))
            else:
                code = repl.run_interactive(history=chat_history(
                    place.files_home, memory.prompt_history, not args.no_history,
                    sys.stderr))
            ended = True
        work_done(args)
    except Terminated as exc:
        # Unreported, it came as the client or the memory opened, or once the input ended.
        if not exc.reported:
            with contextlib.suppress(OSError, ValueError):  # a terminal already hung up
                note(f"chat stopped ({exc.name}) {_ended_how(repl)}" if repl is not None
                     and repl.began else f"chat stopped ({exc.name}) before it read any "
                     f"input; no message was sent or kept")
        raise
    except KeyboardInterrupt as exc:
        if not ended or isinstance(exc, InterruptReported):
            raise
        # Pressed once more after "bye" (or the piped input's end): not "before it read any
        # input", the line a Ctrl-C before the session gets.
        note(CLOSING_STOPPED if repl is None or not repl.store_lost else
             f"chat stopped (Ctrl-C) as it closed the memory, {AFTER_STORE_LOST}")
        raise InterruptReported from exc
    finally:
        second_signals.restore()
    return code


#: After a long wait before a request is sent again (a model still loading): how not to wait.
WAIT_CANCEL = "Ctrl-C cancels the turn"
#: The same in a piped chat, which Ctrl-C ends (exit 130) once the turn is rolled back.
PIPED_WAIT_CANCEL = "Ctrl-C cancels the turn and ends the run"
#: A signal after the session's last line, before the memory closes.
SESSION_ENDED = "as the session ended; every turn and command it finished was saved"
#: Ctrl-C while the memory closes after the session ended.
CLOSING_STOPPED = ("chat stopped (Ctrl-C) as it closed the memory, after the session ended; "
                   "every turn and command it finished was saved")


def wait_cancel(running: str | None, piped: bool = False) -> str:
    """How not to wait for the server (a model still loading, say): Ctrl-C cancels a turn,
    and stops the slash command ``running`` (a /forget the chat's model judges); ``piped``,
    it ends the run too."""
    if running and running.startswith("/"):
        return f"Ctrl-C stops {running}" + (" and ends the run" if piped else "")
    return PIPED_WAIT_CANCEL if piped else WAIT_CANCEL


def _ended_how(repl: Any) -> str:
    from tiermem.agent.chat_reports import STORE_LOST_ENDED

    return STORE_LOST_ENDED if repl.store_lost else SESSION_ENDED


def _note_session_settings(memory: Any, agent: str, store: str | None,
                           note: Callable[[str], None]) -> None:
    """Say so when a flag makes this session's settings differ from the stored ones."""
    from tiermem.agent.place import store_flag
    from tiermem.agent.settings import describe_change

    stored, used = memory.stored_config().core_limit, memory.config.core_limit
    if stored != used:
        change = describe_change("core_limit", stored, used, memory.core.unit,
                                 memory.moved_on_open, "for this session")
        note(f"{change} (`tiermem config{store_flag(store)} --agent {agent} core_limit "
             f"{used}` stores the limit)")
