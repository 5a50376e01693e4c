"""The README's and the skill card's examples agree with the code.

Every command line of theirs that runs tiermem (fenced shell blocks, and `tiermem ...`
spans in the prose) parses with the parser the command line uses, without running;
every option a prose fragment names exists; the exit codes the README lists are the
command line's (its code blocks run in tests/test_readme_code.py). Placeholders (NAME, DSN, `…`)
stand for plausible values. A renamed option or command fails here before a reader
trips on it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from readme_docs import DOCS, ROOT, Block, blocks

from tiermem.agent.cli_parser import COMMANDS, build_parser, parse_args
from tiermem.cli import HANDLERS

DSN = "postgresql://postgres@/postgres?host=/tmp"

#: What each placeholder of the docs stands for when a line is parsed.
PLACEHOLDERS = {
    "NAME": "alice", "FILE": "notes.yaml", "PATH": "out.json", "DSN": DSN,
    "URL": "http://127.0.0.1:8080/v1", "M": "qwen2.5:7b", "TEXT": "my card number",
    "MODE": "exact", "N": "5", "SECONDS": "30", "QUERY": "peanuts",
}
#: `tiermem` arguments the command line answers itself, before its parser (cli.run).
TOP_LEVEL = ("-h", "--help", "help", "-V", "--version")
#: Programs the docs' shell blocks run that are not tiermem, and so are not parsed here.
OTHER_PROGRAMS = {
    "python -m pip": "the installer", "python -m pytest": "the test runner",
    "pytest": "the test runner", "llama-server": "llama.cpp's server",
    "python -m llama_cpp.server": "llama-cpp-python's server", "export": "the shell",
    "echo": "the shell",
}
#: Options the prose names that belong to another program, with whose they are.
OTHER_OPTIONS = {
    "--jinja": "llama-server", "--chat-template-file": "llama-server", "--ctx-size": "llama-server",
    "--enable-auto-tool-choice": "vLLM", "--tool-call-parser": "vLLM",
    "--max-model-len": "vLLM",
}


def _prose(doc: str) -> str:
    text = (ROOT / doc).read_text(encoding="utf-8")
    return re.sub(r"^```\w*\n.*?^```$", "", text, flags=re.MULTILINE | re.DOTALL)


def _spans(doc: str) -> list[str]:
    """The prose's inline code, each span's whitespace (line breaks too) made one space."""
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", _prose(doc))]


# -- shell lines ---------------------------------------------------------------------------------
def _shell_lines(block: Block) -> Iterator[str]:
    """The block's lines with continuations joined, and each `$(...)` as a line of its own."""
    for line in re.sub(r"\\\n", " ", block.text).splitlines():
        yield from re.findall(r"\$\(([^)]*)\)", line)
        yield re.sub(r"\$\([^)]*\)", "value", line)


def _commands(line: str) -> Iterator[list[str]]:
    """Each simple command of ``line`` (pipes, `&&` and `;` split it), without its comment,
    redirections and leading variable assignments."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    command: list[str] = []
    redirect = False
    for token in itertools.chain(lexer, ["&&"]):
        if token in ("|", "||", "&&", ";", "&"):
            while command and re.match(r"[A-Za-z_]\w*=", command[0]):
                command.pop(0)
            if command:
                yield command
            command = []
        elif token in ("<", ">", ">>"):
            redirect = True
        elif redirect:
            redirect = False
        else:
            command.append(token)


@dataclass
class Invocation:
    """A command line of tiermem's: ``argv`` for ``module`` (None: the `tiermem` command)."""

    argv: list[str]
    module: str | None = None


def _invocation(words: list[str]) -> Invocation | str:
    """What ``words`` run: a tiermem invocation, or the name of the other program."""
    if words[:2] == ["nice", "-n"]:
        words = words[3:]
    if words[:1] == ["tiermem"]:
        return Invocation(words[1:])
    if words[:2] == ["python", "cli.py"]:
        return Invocation(words[2:])
    if words[:3] == ["python", "-m", "tiermem"]:
        return Invocation(words[3:])
    if words[:2] == ["python", "-m"] and len(words) > 2 and words[2].startswith("tiermem."):
        return Invocation(words[3:], words[2])
    if words[:1] == ["python"] and len(words) > 1 and re.fullmatch(r"bench/\w+\.py", words[1]):
        return Invocation(words[2:], "tiermem." + words[1][:-3].replace("/", "."))
    for program in OTHER_PROGRAMS:
        if words[:len(program.split())] == program.split():
            return program
    return " ".join(words[:3])


def _substituted(argv: list[str]) -> list[str]:
    return [PLACEHOLDERS.get(word, word.replace("…", "postgres@/postgres?host=/tmp"))
            for word in argv]


class _Parsed(Exception):
    """Raised in place of running a module's command once its arguments are parsed."""


def _parse_error(invocation: Invocation) -> str | None:
    """Why the invocation's arguments do not parse (None: they do); nothing runs."""
    argv = _substituted(invocation.argv)
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
        try:
            if invocation.module is not None:
                return _parse_module(invocation.module, argv)
            if not argv or argv[0] in TOP_LEVEL:
                return None if len(argv) <= 1 else f"{argv[0]} takes no arguments"
            args = parse_args(argv)
        except SystemExit as exc:
            return None if exc.code == 0 else errors.getvalue().strip() or f"exit {exc.code}"
    if args.command not in HANDLERS:
        return f"no such command: {args.command}"
    return None


def _parse_module(module: str, argv: list[str]) -> str | None:
    """A benchmark module's ``main`` is stopped as soon as argparse has parsed ``argv``."""
    import importlib

    real = argparse.ArgumentParser.parse_args

    def parse_then_stop(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        real(self, *args, **kwargs)
        raise _Parsed

    main = importlib.import_module(module).main
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
        patch.setattr(sys, "argv", [module, *argv])
        try:
            main(argv) if main.__code__.co_argcount else main()
        except _Parsed:
            return None
    return f"{module}.main returned without parsing its arguments"


def _fenced_invocations() -> list[tuple[str, Invocation]]:
    found = []
    for doc in DOCS:
        for block in blocks(doc):
            # An unlabelled block is a listing; its lines that start with tiermem are commands.
            if block.lang not in ("bash", ""):
                continue
            for line in _shell_lines(block):
                for words in _commands(line):
                    kind = _invocation(words)
                    if isinstance(kind, Invocation):
                        found.append((f"{block}: {' '.join(words)}", kind))
                    elif block.lang == "bash":
                        assert kind in OTHER_PROGRAMS, (
                            f"{block}: {line.strip()!r} runs {kind!r}, neither tiermem nor a "
                            f"program listed in OTHER_PROGRAMS")
    return found


FENCED = _fenced_invocations()


@pytest.mark.parametrize(("where", "invocation"), FENCED, ids=[w for w, _ in FENCED])
def test_every_command_line_in_a_code_block_parses(where: str, invocation: Invocation) -> None:
    assert _parse_error(invocation) is None, f"{where}\n{_parse_error(invocation)}"


# -- prose -----------------------------------------------------------------------------------------
def _variants(words: list[str]) -> list[list[str]]:
    """Every command line a synopsis stands for: `[...]` optional, `a | b` and `a|b|c`
    alternatives (so `--json [PATH] | --format html` gives `--json`, `--json PATH`, ...)."""
    tokens = " ".join(words).replace("[", " [ ").replace("]", " ] ").split()

    def sequence(at: int) -> tuple[list[list[str]], int]:
        options: list[list[list[str]]] = []  # alternatives, each a list of variants
        current: list[list[str]] = [[]]
        while at < len(tokens) and tokens[at] != "]":
            token = tokens[at]
            if token == "|":
                options.append(current)
                current = [[]]
                at += 1
                continue
            if token == "[":
                inner, at = sequence(at + 1)
                choices = [[], *inner]
                at += 1  # the "]"
            else:
                choices = [[choice] for choice in token.split("|")]
                at += 1
            current = [head + tail for head in current for tail in choices]
        options.append(current)
        return [variant for option in options for variant in option], at

    return sequence(0)[0]


def _prose_invocations() -> list[tuple[str, Invocation]]:
    found = []
    for doc in DOCS:
        for span in _spans(doc):
            kind = _invocation(span.split()) if span.startswith("python ") else None
            if isinstance(kind, Invocation) and kind.argv:
                found.append((f"{doc}: `{span}`", kind))
            # `tiermem migrate` alone names the command (checked below), it shows no use of it.
            if not span.startswith("tiermem ") or len(span.split()) < 3:
                continue
            span = span.replace("\\|", "|")
            # A `|` between two words is a pipe at the top of a span, an alternative inside [].
            first = re.split(r" \| (?![^\[]*\])", span)[0]
            for variant in _variants(first.split()):
                found.append((f"{doc}: `{span}` as {' '.join(variant)}", Invocation(variant[1:])))
    return found


PROSE = _prose_invocations()


@pytest.mark.parametrize(("where", "invocation"), PROSE, ids=[w for w, _ in PROSE])
def test_every_command_line_in_the_prose_parses(where: str, invocation: Invocation) -> None:
    assert _parse_error(invocation) is None, f"{where}\n{_parse_error(invocation)}"


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """Each command's parser by its name (`eval locomo` for eval's benchmark)."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    found[f"{path} {name}".strip()] = child
                    walk(child, f"{path} {name}")

    walk(build_parser(), "")
    return found


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {option for action in parser._actions for option in action.option_strings}


def test_every_option_the_prose_names_exists() -> None:
    """A fragment such as `chat --no-history` or `--context-window N`: each option it names
    is one of that command's (any command's, when none is named), or the chat's slash
    commands', or another program's (OTHER_OPTIONS)."""
    from tiermem.agent.slash_commands import HELP

    parsers = _parsers()
    everywhere = set().union(*map(_options, parsers.values()))
    slash = set(re.findall(r"--[a-z][a-z-]*", HELP)) | set(TOP_LEVEL)
    wrong = []
    for doc in DOCS:
        for span in _spans(doc):
            words = span.split()
            if not words or words[0].startswith("/") or words[0] in ("python", "pip"):
                continue  # a slash command (tests/test_cli_help.py), another program
            if words[0] == "tiermem":
                words = words[1:] or ["--help"]
            name = " ".join(words[:2]) if " ".join(words[:2]) in parsers else words[0]
            known = (_options(parsers[name]) if name in parsers else everywhere) | slash
            for word in words:
                option = word.strip("[]|(),").split("=")[0]
                if (re.fullmatch(r"--[a-z][a-z0-9-]*", option) and option not in known
                        and option not in OTHER_OPTIONS):
                    wrong.append(f"{doc}: `{span}`: {option}")
    assert wrong == []


def test_every_command_the_docs_name_exists() -> None:
    named = {invocation.argv[0] for _, invocation in FENCED + PROSE
             if invocation.module is None and invocation.argv[:1] != []
             and invocation.argv[0] not in TOP_LEVEL}
    for doc in DOCS:
        named |= set(re.findall(r"`tiermem ([a-z][a-z-]*)", _prose(doc)))
    assert named - set(COMMANDS) == set()
    assert set(COMMANDS) == set(HANDLERS)


def test_a_renamed_option_fails_the_check() -> None:
    """The check itself: a line of the docs with its first option misspelt is refused."""
    for where, invocation in FENCED + PROSE:
        options = [word for word in invocation.argv if word.startswith("--")]
        if invocation.module is None and options and invocation.argv[0] not in TOP_LEVEL:
            renamed = [word + "x" if word == options[0] else word for word in invocation.argv]
            assert options[0] + "x" in (_parse_error(Invocation(renamed)) or ""), where
            return
    raise AssertionError("the docs show no tiermem command with an option")


def test_the_lists_of_commands_that_take_an_option_are_whole() -> None:
    """"`a`, `b` and `c` take `--x`" and "`--x` on `a`, `b` and `c`": exactly the commands
    that take --x (for `--json [PATH]`, a --json that takes a path; `chat --json` is a flag)."""
    parsers = _parsers()
    names = r"((?:`[a-z-]+`,? (?:and )?)*`[a-z-]+`)"
    checked = 0
    for doc in DOCS:
        prose = " ".join(_prose(doc).split())
        claims = [(listed, option) for listed, option in re.findall(
            names + r" take `(--[a-z-]+)", prose)]
        claims += [(listed, option) for option, listed in re.findall(
            r"`(--[a-z-]+)[^`]*` on " + names, prose)]
        for listed, option in claims:
            def takes(parser: argparse.ArgumentParser, option: str = option) -> bool:
                return any(option in action.option_strings and (
                    option != "--json" or action.nargs == "?") for action in parser._actions)

            taking = {name.split()[0] for name, parser in parsers.items() if takes(parser)}
            assert set(re.findall(r"`([a-z-]+)`", listed)) == taking, (doc, listed, option)
            checked += 1
    assert checked >= 3


# -- the exit codes ------------------------------------------------------------------------------
def _exit_codes(text: str) -> list[int]:
    """The codes a list such as "0 ok, 1 failed, 2 usage error" gives, in its order."""
    return [int(code) for code in re.findall(r"(?:^|, )(\d+) ", text)]


def test_the_exit_code_table_is_what_the_command_line_says() -> None:
    import tiermem.cli as cli

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = {int(code): meaning
             for code, meaning in re.findall(r"^\| (\d+) \| (.+) \|$", readme, re.MULTILINE)}
    assert list(table) == [0, 1, 2, 74, 129, 130, 141, 143]
    assert cli.EXIT_OUTPUT_FAILED == 74
    assert cli.EXIT_BROKEN_PIPE == 141
    module = " ".join((cli.__doc__ or "").split())
    listed = module[module.index("Exit codes:"):]
    assert [int(c) for c in re.findall(r"(?:: |; )(\d+) ", listed)] == list(table)
    assert _exit_codes(cli.EXIT_CODES.removeprefix("exit codes: ")) == list(table)
    # Commands whose 1 means more than a failure say so in their --help; the table names them.
    with_epilog = {}
    for name, parser in _parsers().items():
        epilog = " ".join((parser.epilog or "").split())
        if "exit codes: " in epilog:
            codes = _exit_codes(epilog[epilog.index("exit codes: ") + len("exit codes: "):])
            assert set(codes) <= set(table) and 2 in codes and "2 usage error" in epilog, name
            with_epilog[name] = codes
    assert set(re.findall(r"`([a-z][a-z-]*)`", table[1])) == set(with_epilog)
