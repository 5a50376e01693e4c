"""tiermem's command line: a thin shell that parses (agent/cli_parser.py) and hands each
command to its module in agent/, scenarios/, bench/ or evals/ (``HANDLERS``).

``tiermem --help`` lists the commands, then prints the skill card (SKILL.md).
Exit codes: 0 ok; 1 a check, a turn or an operation failed; 2 a usage error
(a bad option or policy file, a model configuration that cannot make a client,
an unknown agent, an output path that cannot be written, standard output closed,
or standard input closed for chat or forget -);
74 standard output could not be written (a full disk behind ``> FILE``; what the
command did besides printing stands); 129 hung up (SIGHUP: as for 143); 130 interrupted,
after one line on standard error saying what Ctrl-C stopped and what it left (forget,
reindex, upgrade, migrate, restore, drop-agent, eval and a chat's turn read back or know that, each
in its own module, and raise ``InterruptReported``; agent/interrupted.py has the line of
every other command, or of those before their work starts, and the one for any command
once its work is done); 141 the reader of the output went
away (``| head``); 143 terminated (SIGTERM: a chat first cancels a turn under way, as
Ctrl-C does, and gives the terminal back; agent/interrupts.py).
With standard error closed (``2>&-``) its messages are dropped and the exit
status is the same; a command that reads no standard input runs with it closed
(``<&-``) as with it empty.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from tiermem.agent.cli_parser import COMMANDS, parse_args
from tiermem.agent.cli_parser import build_parser as build_parser  # re-exported for callers
from tiermem.agent.closed_streams import WatchedOutput, raised_by, settle_closed_streams
from tiermem.agent.interrupts import InterruptReported

EXIT_CODES = ("exit codes: 0 ok, 1 a check or turn failed, 2 usage error "
              "(bad option, unknown agent, unwritable output path), 74 standard output "
              "could not be written, 129 hung up (SIGHUP), 130 interrupted, "
              "141 output closed (| head), 143 terminated (SIGTERM)")
#: The status of a process whose output pipe was closed: 128 + SIGPIPE.
EXIT_BROKEN_PIPE = 141
#: A write to standard output failed (sysexits' EX_IOERR). Not 1, which several
#: commands give a meaning of their own (``forget``: nothing was forgotten), while
#: the command's work is done by then.
EXIT_OUTPUT_FAILED = 74


def print_help() -> int:
    """The commands, one line each, then the skill card."""
    from tiermem.agent.skill_card import command_list, skill_file

    sys.stdout.write(command_list(COMMANDS, EXIT_CODES))
    card = skill_file()
    if card is None:
        return _fail("SKILL.md is missing from this installation; reinstall tiermem "
                     "(python -m pip install --force-reinstall tiermem)")
    sys.stdout.write(card.read_text(encoding="utf-8"))
    return 0


def _note(message: str) -> None:
    sys.stderr.write(f"tiermem: {message}\n")


def _fail(message: str, code: int = 1) -> int:
    _note(message)
    return code


#: Where each command's body is: its module (imported when the command runs, so that
#: ``--help`` and every other command stay quick) and its function, called with the
#: parsed arguments and the function that writes a ``tiermem:`` line on standard error.
HANDLERS: dict[str, tuple[str, str]] = {
    "chat": ("tiermem.agent.chat_command", "cmd_chat"),
    "config": ("tiermem.agent.config_command", "cmd_config"),
    "diagnostics": ("tiermem.agent.diagnostics_command", "cmd_diagnostics"),
    "scenario": ("tiermem.scenarios.command", "cmd_scenario"),
    "benchmark": ("tiermem.bench.command", "cmd_benchmark"),
    "eval": ("tiermem.evals.locomo_command", "cmd_eval"),
    "reindex": ("tiermem.agent.store_commands", "cmd_reindex"),
    "index": ("tiermem.agent.index_command", "cmd_index"),
    "doctor": ("tiermem.agent.doctor_render", "cmd_doctor"),
    "pg": ("tiermem.agent.pg_commands", "cmd_pg"),
    "migrate": ("tiermem.agent.store_commands", "cmd_migrate"),
    "forget": ("tiermem.agent.forget_command", "cmd_forget"),
    "drop-agent": ("tiermem.agent.pg_commands", "cmd_drop_agent"),
    "upgrade": ("tiermem.agent.upgrade_command", "cmd_upgrade"),
    "restore": ("tiermem.agent.restore_command", "cmd_restore"),
}


def handler(command: str) -> Callable[[argparse.Namespace, Callable[[str], None]], int]:
    """The function that runs ``command`` (imported now)."""
    module, name = HANDLERS[command]
    found: Callable[[argparse.Namespace, Callable[[str], None]], int] = getattr(
        importlib.import_module(module), name)
    return found


def run(argv: Sequence[str]) -> int:
    """One command; the exit status (see the module docstring)."""
    argv = list(argv)
    if argv[:1] == ["help"] and len(argv) > 1:
        argv = [*argv[1:], "--help"]  # `tiermem help eval locomo` is `tiermem eval locomo --help`
    if not argv or argv[0] in ("-h", "--help", "help"):
        return print_help()
    if argv[0] in ("-V", "--version"):
        from tiermem.agent.skill_card import version

        print(f"tiermem {version()}")
        return 0
    args = None
    try:
        args = parse_args(argv)
        return _run(args)
    except InterruptReported:
        return 130  # the command said what Ctrl-C left
    except KeyboardInterrupt:
        from tiermem.agent.interrupted import interrupted_note

        try:
            said = interrupted_note(args)
        except Exception:  # never a traceback for a Ctrl-C
            said = "stopped (Ctrl-C)"
        return _fail(said, 130)


def _run(args: argparse.Namespace) -> int:
    if args.command not in HANDLERS:
        return _fail("name a command: " + ", ".join(COMMANDS) + " (tiermem --help)", code=2)
    from tiermem.agent.errors import LLMConfigError
    from tiermem.agent.home import (
        EmptyHomeVariableError,
        HomeNotAccessibleError,
        HomeNotDirectoryError,
        NoSuchAgentError,
    )
    from tiermem.agent.interrupted import work_done
    from tiermem.agent.library_notes import library_notes
    from tiermem.agent.place import StoreOptionError
    from tiermem.agent.store_errors import cli_message
    from tiermem.memory.errors import InvalidConfigError, TiermemError
    from tiermem.memory.output_file import OutputPathError

    try:
        with library_notes(_note):
            code = handler(args.command)(args, _note)
            work_done(args)  # the writing commands say so themselves, before they return
        return code
    except (NoSuchAgentError, OutputPathError, StoreOptionError, EmptyHomeVariableError,
            HomeNotDirectoryError, HomeNotAccessibleError) as exc:
        return _fail(str(exc), 2)
    except LLMConfigError as exc:
        # The model options or their environment (a base URL without a model, a bad
        # TIERMEM_MAX_TOKENS) cannot make a client: a bad value, as doctor treats one.
        return _fail(str(exc), 2)
    except InvalidConfigError as exc:
        # Before any work: a policy file or a setting given is a bad value (usage).
        return _fail(cli_message(exc, args),
                     2 if args.command in ("chat", "config", "forget") else 1)
    except TiermemError as exc:
        return _fail(cli_message(exc, args))


def main(argv: Sequence[str] | None = None) -> int:
    """The ``tiermem`` entry point."""
    settle_closed_streams()  # before anything opens a file onto a closed descriptor
    if sys.stdout is None:  # `>&-`: every report would be lost
        return _fail("standard output is closed; redirect it to a file, or to /dev/null to "
                     "discard it", 2)
    given = sys.stdout
    sys.stdout = watched = WatchedOutput(given)
    try:
        code = run(sys.argv[1:] if argv is None else argv)
        try:
            sys.stdout.flush()  # a closed pipe shows here, not as a warning at exit
        except KeyboardInterrupt:
            return _fail("stopped (Ctrl-C) while writing the last of the output, which may "
                         "be cut short; what the command did stands", 130)
        return code
    except BrokenPipeError:
        # The reader (`| head`) has gone: stop quietly, as other command-line tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except SystemExit as exc:
        # rich's Console meets a closed pipe by pointing stdout at devnull and raising
        # SystemExit(1) from the BrokenPipeError: the same case as above.
        if isinstance(exc.__context__, BrokenPipeError):
            return EXIT_BROKEN_PIPE
        raise
    except KeyboardInterrupt:  # --help, --version: they change nothing
        return _fail("stopped (Ctrl-C); nothing was changed", 130)
    except OSError as exc:
        # A full disk or a failing device behind `> FILE`: say so, not a traceback.
        if watched.failure is None or not raised_by(exc, watched.failure):
            raise
        # What was not written stays buffered: dropped, so the exit does not try again.
        with contextlib.suppress(OSError, ValueError, AttributeError):  # no descriptor
            descriptor = given.fileno()
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, descriptor)
            os.close(devnull)
        reason = watched.failure.strerror or str(watched.failure)
        return _fail(f"cannot write standard output: {reason}; the command's output is "
                     f"incomplete (its other effects stand). Redirect it where there is room",
                     EXIT_OUTPUT_FAILED)
    finally:
        if sys.stdout is watched:
            sys.stdout = given


if __name__ == "__main__":
    sys.exit(main())
