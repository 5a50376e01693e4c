"""--help, --version, help text for every option, and the skill card wherever it is installed."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_cli import ROOT, tiermem

import tiermem.cli as cli


def test_help_starts_with_one_line_per_command(tmp_path: Path) -> None:
    done = tiermem(tmp_path, "--help")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    listed = [line.split()[0] for line in lines[3:3 + len(cli.COMMANDS)]]
    assert lines[2] == "commands:" and listed == list(cli.COMMANDS)
    assert "exit codes: 0 ok, 1" in done.stdout
    assert "# tiermem" in lines  # the skill card follows


def test_help_of_a_command_is_that_commands_help(tmp_path: Path) -> None:
    asked = tiermem(tmp_path, "help", "eval", "locomo")
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout == tiermem(tmp_path, "eval", "locomo", "--help").stdout
    assert asked.stdout.startswith("usage: tiermem eval locomo")
    unknown = tiermem(tmp_path, "help", "nosuch")
    assert unknown.returncode == 2 and "invalid choice: 'nosuch'" in unknown.stderr


def test_version(tmp_path: Path) -> None:
    done = tiermem(tmp_path, "--version")
    expected = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert (done.returncode, done.stdout) == (0, f"tiermem {expected}\n")


def _options(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _options(child, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction):
            yield f"{path} {'/'.join(action.option_strings) or action.dest}", action


def test_every_option_of_every_command_has_help() -> None:
    options = dict(_options(cli.build_parser(), "tiermem"))
    assert "tiermem chat --core-limit" in options and "tiermem eval locomo --k" in options
    missing = [name for name, action in options.items()
               if not action.help or action.help == argparse.SUPPRESS]
    assert missing == []


def test_every_command_has_a_one_line_description() -> None:
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(commands.choices) == list(cli.COMMANDS)


def test_the_skill_card_is_found_in_a_user_install(tmp_path: Path) -> None:
    """`pip install --user` puts SKILL.md under the user base, not under sys.prefix."""
    user_base = tmp_path / "userbase"
    card = user_base / "share" / "tiermem" / "SKILL.md"
    card.parent.mkdir(parents=True)
    card.write_text("# the card from the user base\n")
    site_packages = tmp_path / "site-packages"  # where cli.py is: no SKILL.md beside it
    site_packages.mkdir()
    found = subprocess.run(
        [sys.executable, "-c", "import sys; from pathlib import Path; "
         "from tiermem.agent.skill_card import skill_file; print(skill_file(Path(sys.argv[1])))",
         str(site_packages)],
        cwd=ROOT, env={"PYTHONUSERBASE": str(user_base), "PYTHONPATH": str(ROOT),
                       "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, check=False)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == str(card)


def test_the_skill_card_of_a_checkout_comes_first() -> None:
    from tiermem.agent.skill_card import skill_candidates, skill_file

    assert skill_file() == ROOT / "SKILL.md"
    roots = [str(p) for p in skill_candidates()]
    assert roots[0] == str(ROOT / "SKILL.md")
    assert str(Path(sys.prefix, "share", "tiermem", "SKILL.md")) in roots


def test_the_readme_names_every_slash_command_and_the_real_agent_home() -> None:
    import re

    from tiermem.agent.home import agent_home
    from tiermem.agent.slash_commands import HELP

    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    listed = readme[readme.index("Slash commands:"):]
    listed = listed[:listed.index("Other commands:")]
    for command in sorted(set(re.findall(r"^\s+(/[a-z]+)", HELP, re.MULTILINE))):
        assert f"`{command}" in listed, command
    assert agent_home("alice").relative_to(agent_home("alice").parent.parent) == Path(
        "agents/alice")
    assert "`$TIERMEM_HOME/agents/NAME`" in listed
    assert "~/.tiermem/NAME" not in readme and "~/.tiermem/alice" not in readme
    assert "'tiermem[" not in readme  # extras install from the checkout, as the first screen


def test_the_readme_lists_exactly_the_commands_that_take_store() -> None:
    import argparse
    import re

    from tiermem.cli import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    taking = {name for name, command in sub.choices.items()
              if any("--store" in action.option_strings for action in command._actions)}
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    listed = re.search(r"every command that opens an agent \(([^)]*)\)", readme)
    assert listed is not None
    assert set(re.findall(r"`([a-z-]+)`", listed.group(1))) == taking


def test_a_mistake_is_shown_with_the_usage_of_its_own_command(
        capsys: pytest.CaptureFixture[str]) -> None:
    cases = [(["chat", "--bogusflag"], "usage: tiermem chat ",
              "tiermem chat: error: unrecognized arguments: --bogusflag"),
             (["forget", "--json", "fo.json", "zzz"], "usage: tiermem forget ",
              "tiermem forget: error: unrecognized arguments: zzz (its --json is a flag that "
              "prints JSON on standard output; it takes no PATH)"),
             (["eval"], "usage: tiermem eval ",
              "tiermem eval: error: name the benchmark to run: `tiermem eval locomo` "
              "(`tiermem eval locomo --help` lists its options)"),
             (["eval", "locomo", "--bogus"], "usage: tiermem eval locomo ",
              "tiermem eval locomo: error: unrecognized arguments: --bogus")]
    for argv, usage, error in cases:
        with pytest.raises(SystemExit) as stopped:
            cli.run(argv)
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith(usage) and err.splitlines()[-1] == error, err


@pytest.mark.parametrize(("argv", "shown"), [
    (["migrate", "--agent", "a", "--from", "x", "--to", "y", "--store",
      "postgresql://u@h/db?sslpassword=Hunter2Secret"],
     "tiermem migrate: error: unrecognized arguments: --store "
     "postgresql://u@h/db?sslpassword=***"),
    (["chat", "--bogus=postgresql://u:Hunter2Secret@h/db"],
     "tiermem chat: error: unrecognized arguments: --bogus=postgresql://u:***@h/db"),
    (["postgresql://u:Hunter2Secret@h/db"],
     "tiermem: error: argument command: invalid choice: 'postgresql://u:***@h/db'"),
    (["pg", "status", "host=h password='Hunter2 Secret'"],
     "tiermem pg: error: unrecognized arguments: host=h password='***'"),
])
def test_a_usage_error_shows_no_password_of_its_arguments(
        argv: list[str], shown: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: argparse repeated the DSN whole, password and all.
    with pytest.raises(SystemExit) as stopped:
        cli.run(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "Hunter2" not in err and shown in err.splitlines()[-1], err


def test_the_skill_card_names_every_tool_the_model_is_given() -> None:
    import re

    from tiermem.tools.memory_tools import memory_toolbox

    skill = " ".join((ROOT / "SKILL.md").read_text(encoding="utf-8").split())
    listed = skill[skill.index("the same steps happen through the agent's tools:"):]
    listed = listed[:listed.index(". ")]
    named = set(re.findall(r"`([a-z_]+)`", listed))
    given = {schema["function"]["name"] for schema in memory_toolbox().schemas()}
    assert named == given


@pytest.mark.parametrize(("command", "slash"), [("core", "/core"),
                                                ("search", "/archival QUERY or /recall QUERY")])
def test_a_command_that_would_read_memory_points_to_the_chat(
        capsys: pytest.CaptureFixture[str], command: str, slash: str) -> None:
    # No command reads core or searches outside the chat: argparse's bare "invalid choice"
    # left the user guessing where that is.
    with pytest.raises(SystemExit) as stopped:
        cli.run([command, "x"])
    assert stopped.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"tiermem: error: no command '{command}': memory is read in "
                           f"`tiermem chat --agent NAME`, with {slash} (piped too: echo '")


def test_a_snapshot_command_points_to_the_chat_and_to_restore(
        capsys: pytest.CaptureFixture[str]) -> None:
    # `tiermem --help` lists restore, "from a snapshot file (the chat's /snapshot FILE)":
    # the word a user then types for the other half got argparse's bare "invalid choice".
    with pytest.raises(SystemExit) as stopped:
        cli.run(["snapshot", "memory.json"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "tiermem: error: no command 'snapshot': a snapshot is written in `tiermem chat "
        "--agent NAME`, with /snapshot FILE (piped too: echo '/snapshot FILE' | tiermem chat "
        "--agent NAME), and `tiermem restore FILE` reads it back; `tiermem --help` lists the "
        "commands")


def test_help_and_the_readme_name_every_command_the_chat_takes_with_nothing_after_it(
) -> None:
    # /quit left a chat as /exit does, yet neither /help nor the README named it.
    import re

    from tiermem.agent.slash_commands import _NO_ARGUMENT, HELP

    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    listed = readme[readme.index("Slash commands:"):readme.index("Other commands:")]
    shown = set(re.findall(r"(?<![\w/])/[a-z]+\b", HELP))
    for command in sorted(_NO_ARGUMENT):
        assert command in shown and f"`{command}`" in listed, command
