"""A path given with ``~USER`` for no such user is left as a shell leaves it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_cli import tiermem

from tiermem.user_paths import expanded

NO_USER = "~tiermem-no-such-user"


def test_a_tilde_is_expanded_and_one_naming_no_user_is_left_as_given(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert expanded("~/p.yaml") == tmp_path / "p.yaml"
    assert expanded(Path(f"{NO_USER}/p.yaml")) == Path(f"{NO_USER}/p.yaml")
    assert expanded("~no\0user/x") == Path("~no\0user/x")
    assert expanded("a/~/b") == Path("a/~/b")
    assert os.fspath(expanded("")) == "."


@pytest.mark.parametrize(("args", "said"), [
    (("chat", "--offline", "--policy", f"{NO_USER}/p.yaml"),
     f"tiermem: cannot read the policy file {NO_USER}/p.yaml: No such file or directory"),
    (("diagnostics", "--out", f"{NO_USER}/x"),
     f"tiermem: cannot write {NO_USER}/x: the directory {NO_USER} does not exist"),
    (("restore", "--agent", "b", f"{NO_USER}/s.json"),
     f"tiermem: cannot read {NO_USER}/s.json: No such file or directory"),
])
def test_an_option_naming_no_users_home_is_refused_not_a_traceback(
        tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    # Path.expanduser raised RuntimeError("Could not determine home directory.").
    done = tiermem(tmp_path / "home", *args, stdin="hi\n")
    assert "Traceback" not in done.stderr and "RuntimeError" not in done.stderr
    assert done.stderr.startswith(said) and done.returncode != 0
