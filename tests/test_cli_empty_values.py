"""Empty option values (an unset shell variable) are usage errors, not the working
directory or a quiet default; ``config --json SETTING`` reads the setting."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import ROOT, cli_env, tiermem


def run_in(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=cwd,
                          env=cli_env(home), capture_output=True, text=True, check=False)


@pytest.mark.parametrize(("args", "option"), [
    (("migrate", "--from", "HOME_A", "--to", ""), "--to"),
    (("migrate", "--from", "", "--to", "elsewhere"), "--from"),
    (("pg", "start", "--dir", ""), "--dir"),
    (("upgrade", "--home", ""), "--home"),
    (("diagnostics", "--agent", "a", "--out", ""), "--out"),
    (("diagnostics", "--agent", "a", "--json", ""), "--json"),
    (("config", "--agent", "a", "--store", ""), "--store"),
])
def test_an_empty_value_is_a_usage_error_and_touches_nothing(
        tmp_path: Path, args: tuple[str, ...], option: str) -> None:
    home = tmp_path / "home"
    seeded = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", stdin="hi\n")
    assert seeded.returncode == 0, seeded.stderr
    # The agent home itself as the working directory: `--from ''` would read it, and
    # the rest would write beside it.
    cwd = home / "agents" / "a"
    before = sorted(p.name for p in cwd.iterdir())
    given = [str(cwd) if word == "HOME_A" else word for word in args]
    done = run_in(cwd, home, *given)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"argument {option}: the value is empty; give " in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in cwd.iterdir()) == before
    assert not (cwd / "elsewhere").exists()


def test_config_json_followed_by_a_setting_shows_or_changes_that_setting(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    seeded = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", stdin="hi\n")
    assert seeded.returncode == 0, seeded.stderr
    shown = run_in(tmp_path, home, "config", "--agent", "a", "--json", "core_limit")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == {"agent": "a", "settings": {"core_limit": 2000}}
    changed = run_in(tmp_path, home, "config", "--agent", "a", "--json", "core_limit", "3000")
    assert changed.returncode == 0, changed.stderr
    assert json.loads(changed.stdout)["new"] == 3000
    assert not (tmp_path / "core_limit").exists()
    # ./NAME is a file of that name, and so is a name whose file exists already.
    to_file = run_in(tmp_path, home, "config", "--agent", "a", "--json", "./core_limit")
    assert to_file.returncode == 0, to_file.stderr
    written = json.loads((tmp_path / "core_limit").read_text())["settings"]
    assert written["core_limit"] == 3000 and len(written) > 1  # every setting
    (tmp_path / "core_limit").write_text("{}")
    again = run_in(tmp_path, home, "config", "--agent", "a", "--json", "core_limit")
    assert again.returncode == 0, again.stderr
    assert json.loads((tmp_path / "core_limit").read_text())["settings"] == written


@pytest.mark.parametrize(("args", "option"), [
    # Empty, --base-url would quietly mean OpenAI's API and send the conversation there.
    (("chat", "--base-url", ""), "--base-url"),
    (("chat", "--model", " "), "--model"),
    (("doctor", "--base-url", ""), "--base-url"),
    (("doctor", "--model", ""), "--model"),
    (("forget", "--model", "", "some text"), "--model"),
    (("forget", "--base-url", "", "some text"), "--base-url"),
    (("scenario", "--model", ""), "--model"),
    (("eval", "locomo", "--data", "x", "--base-url", ""), "--base-url"),
    # Empty, --data and FILE read the working directory.
    (("eval", "locomo", "--data", ""), "--data"),
    (("restore", ""), "FILE"),
])
def test_an_empty_model_endpoint_or_input_is_a_usage_error(
        args: tuple[str, ...], option: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.agent.cli_parser import build_parser

    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(list(args))
    assert stopped.value.code == 2
    assert f"argument {option}: the value is empty; give " in capsys.readouterr().err


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_tiermem_home_is_a_usage_error_not_the_default_home(
        tmp_path: Path, value: str) -> None:
    """`TIERMEM_HOME=$DIR tiermem ...` with DIR unset: the real agents in ~/.tiermem must
    not stand in for the ones meant (a forget or a config change would act on them)."""
    user = tmp_path / "user"
    real = user / ".tiermem"
    seeded = tiermem(real, "chat", "--agent", "a", "--embedder", "hashing", stdin="hi\n")
    assert seeded.returncode == 0, seeded.stderr
    before = sorted(str(p) for p in user.rglob("*"))
    env = {**cli_env(real), "TIERMEM_HOME": value, "HOME": str(user)}
    for args in (("diagnostics", "--agent", "a"), ("config", "--agent", "a", "core_limit", "9"),
                 ("chat", "--agent", "b"), ("forget", "--agent", "a", "hi"),
                 ("pg", "status")):
        done = subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=tmp_path,
                              env=env, input="hello\n", capture_output=True, text=True,
                              check=False)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stderr == (
            "tiermem: TIERMEM_HOME is set but empty (an unset shell variable?); set it to the "
            "directory to keep agent homes in, or unset it (`unset TIERMEM_HOME`) to use "
            "~/.tiermem\n"), args
    assert sorted(str(p) for p in user.rglob("*")) == before
