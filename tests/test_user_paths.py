"""A path given with ``~USER`` for no such user is left as a shell leaves it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import ROOT, cli_env, tiermem

from tiermem import HierarchicalMemory, InvalidInputError
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


def _run(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=cwd,
                          env=cli_env(home), input="hi\n", capture_output=True, text=True,
                          check=False)


def test_a_place_to_create_naming_no_users_home_is_refused_not_made_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each was made as a directory "~tiermem-no-such-user" in the working directory.
    source = tmp_path / "home"
    assert tiermem(source, "chat", "--offline", "--agent", "a").returncode == 0
    work = tmp_path / "work"
    work.mkdir()
    said = f"{NO_USER} names no home: there is no user {NO_USER[1:]!r} here"
    chat = _run(work, Path(f"{NO_USER}/h"), "chat", "--offline")
    assert chat.stderr.startswith(f"tiermem: TIERMEM_HOME is {NO_USER}/h, but {said}; ")
    moved = _run(work, source, "migrate", "--from", str(source / "agents" / "a"),
                 "--to", f"{NO_USER}/a")
    assert moved.stderr.startswith(f"tiermem: --to: {said}; ")
    server = _run(work, source, "pg", "status", "--dir", f"{NO_USER}/pg")
    assert server.stderr.startswith(f"tiermem: --dir {NO_USER}/pg: {said}; ")
    assert chat.returncode == moved.returncode == server.returncode == 2
    monkeypatch.chdir(work)
    with pytest.raises(InvalidInputError, match=f"path '{NO_USER}/m': {said}; "):
        HierarchicalMemory(path=f"{NO_USER}/m")
    assert list(work.iterdir()) == []


def test_a_directory_so_named_here_is_used_as_given(tmp_path: Path) -> None:
    (tmp_path / NO_USER).mkdir()
    done = _run(tmp_path, Path(f"{NO_USER}/h"), "chat", "--offline")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / NO_USER / "h" / "agents" / "default").is_dir()


def test_a_tilde_after_a_dot_slash_is_a_directory_here(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # pathlib reads "./~/h" as "~/h": TIERMEM_HOME=./~/h put the agents in $HOME/h.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    assert expanded("./~/h") == tmp_path / "~" / "h" == expanded(expanded("./~/h"))
    assert expanded("~/h") == tmp_path / "home" / "h"
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "chat", "--offline"],
                          cwd=work, env={**cli_env(work), "TIERMEM_HOME": "./~/h",
                                          "HOME": str(tmp_path)},
                          input="hi\n", capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert (work / "~" / "h" / "agents" / "default").is_dir()
    assert not (tmp_path / "h").exists()


def test_a_home_the_tilde_after_a_dot_slash_named_is_not_left_for_an_empty_one(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # TIERMEM_HOME=./~/h kept the agents in $HOME/h; read as the directory "~" here, the
    # chat made an empty home there and said it knew nothing, its memory left unseen.
    home = tmp_path / "home"
    assert tiermem(home / "h", "chat", "--offline", "--agent", "a").returncode == 0
    (home / "pg").mkdir()
    work = tmp_path / "work"
    work.mkdir()
    env = {**cli_env(work), "TIERMEM_HOME": "./~/h", "HOME": str(home)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=work,
                              env=env, input="hi\n", capture_output=True, text=True,
                              check=False)

    said = f"{work}/~/h (the directory ~ here) does not exist, while ~/h ({home}/h) does"
    chat = run("chat", "--offline", "--agent", "a")
    assert chat.stderr.startswith(f"tiermem: TIERMEM_HOME is ./~/h, but {said}; give ~/h ")
    server = run("pg", "status", "--dir", "./~/pg")
    assert f"argument --dir: {work}/~/pg (the directory ~ here) does not exist" in server.stderr
    assert chat.returncode == server.returncode == 2
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    with pytest.raises(InvalidInputError, match=r"path '\./~/h/agents/a': .* does not exist"):
        HierarchicalMemory(path="./~/h/agents/a")
    assert list(work.iterdir()) == []
    (work / "~" / "h").mkdir(parents=True)
    assert run("chat", "--offline").returncode == 0
    assert (work / "~" / "h" / "agents" / "default").is_dir()


@pytest.mark.parametrize("empty", ["", " "])
def test_an_empty_home_variable_names_no_home(
        empty: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Python reads "~" with HOME="" as "/": the agents went to /.tiermem, and
    # TIERMEM_HOME=~/h to /h. Checked in this process: nothing is made.
    from tiermem.agent.home import HomeNotDirectoryError, tiermem_home
    from tiermem.user_paths import unknown_home

    monkeypatch.setenv("HOME", empty)
    monkeypatch.chdir(tmp_path)
    assert expanded("~/h") == Path("~/h") and expanded("~") == Path("~")
    assert unknown_home("~/h") == "~ names no home: HOME is set but empty"
    monkeypatch.delenv("TIERMEM_HOME", raising=False)
    with pytest.raises(HomeNotDirectoryError) as refused:
        tiermem_home()
    assert str(refused.value) == (
        "HOME is set but empty, so ~/.tiermem, where agent homes are kept, names no "
        "directory; set TIERMEM_HOME to the directory to keep them in, or set HOME")
    monkeypatch.setenv("TIERMEM_HOME", "~/h")
    with pytest.raises(HomeNotDirectoryError, match=r"^TIERMEM_HOME is ~/h, but ~ names no "
                                                    r"home: HOME is set but empty; set it"):
        tiermem_home()
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "h"))  # a home given needs no HOME
    assert tiermem_home() == tmp_path / "h"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("uid", [0, 1000])
def test_the_local_server_directory_follows_the_rules_of_agent_homes(
        uid: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Before: HOME="" put a user's server in /.tiermem/postgres, and TIERMEM_HOME=""
    # (or blank) was read as unset: ~/.tiermem/postgres, or root's /var/lib/tiermem.
    import tiermem.cli as cli
    from tiermem.memory.store.postgres.local_server import LocalServerError, default_data_dir

    monkeypatch.setattr(os, "geteuid", lambda: uid)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TIERMEM_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    default = Path("/var/lib/tiermem") if uid == 0 else tmp_path / ".tiermem"
    assert default_data_dir() == default / "postgres"
    for empty in ("", " "):
        monkeypatch.setenv("TIERMEM_HOME", empty)
        with pytest.raises(LocalServerError, match=r"^TIERMEM_HOME is set but empty"):
            default_data_dir()
        assert cli.main(["pg", "status"]) == 2
        assert "TIERMEM_HOME is set but empty" in capsys.readouterr().err
    monkeypatch.setenv("HOME", "")
    monkeypatch.setenv("TIERMEM_HOME", "~/h")
    with pytest.raises(LocalServerError, match=r"^TIERMEM_HOME is ~/h, but ~ names no home"):
        default_data_dir()
    monkeypatch.delenv("TIERMEM_HOME")
    if uid == 0:  # root's server needs no HOME
        assert default_data_dir() == Path("/var/lib/tiermem/postgres")
    else:
        with pytest.raises(LocalServerError, match=r"^HOME is set but empty, so ~/\.tiermem"):
            default_data_dir()
        assert cli.main(["pg", "status"]) == 2
        assert "HOME is set but empty" in capsys.readouterr().err
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "h"))
    assert default_data_dir() == tmp_path / "h" / "postgres"
    assert list(tmp_path.iterdir()) == []


def test_no_home_at_all_is_a_usage_error(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    # A container's user with no HOME and no account: before, a RuntimeError traceback
    # ("Could not determine home directory") from every command.
    import pwd

    import tiermem.cli as cli

    def no_account(uid: int) -> pwd.struct_passwd:
        raise KeyError(uid)

    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("TIERMEM_HOME", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", no_account)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.chdir(tmp_path)
    for argv in (["config", "--agent", "a"], ["pg", "status"]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("tiermem: HOME is not set, and this user has no home, so "
                              "~/.tiermem"), err
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "h"))
    assert cli.main(["config", "--agent", "a"]) in (0, 2)
    assert "HOME is not set" not in capsys.readouterr().err


def test_pg_help_names_the_server_directory_of_each_kind_of_user(
        capsys: pytest.CaptureFixture[str]) -> None:
    # Before: "(default: $TIERMEM_HOME/postgres; for root /var/lib/tiermem/postgres)",
    # naming none for a user without TIERMEM_HOME, and root's for root with it.
    import tiermem.cli as cli

    with pytest.raises(SystemExit):
        cli.run(["pg", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert ("(default: $TIERMEM_HOME/postgres; unset, ~/.tiermem/postgres, or for root "
            "/var/lib/tiermem/postgres)") in shown, shown


def test_a_relative_home_variable_names_no_home(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    # HOME=rel put the agents in ./rel/.tiermem and `tiermem pg`'s server in
    # ./rel/.tiermem/postgres, under whatever directory the command ran in.
    import tiermem.cli as cli
    from tiermem.agent.home import HomeNotDirectoryError, tiermem_home
    from tiermem.memory.store.postgres.local_server import LocalServerError, default_data_dir
    from tiermem.user_paths import unknown_home

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setenv("HOME", "rel")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TIERMEM_HOME", raising=False)
    assert expanded("~/h") == Path("~/h")
    assert unknown_home("~/h") == "~ names no home: HOME is 'rel', a relative path"
    said = ("HOME is 'rel', a relative path, so ~/.tiermem, where agent homes are kept, "
            "would be made under the working directory; set HOME to an absolute path, or "
            "set TIERMEM_HOME to the directory to keep them in")
    with pytest.raises(HomeNotDirectoryError) as refused:
        tiermem_home()
    assert str(refused.value) == said
    with pytest.raises(LocalServerError) as server_refused:
        default_data_dir()
    assert str(server_refused.value) == said
    assert cli.main(["pg", "status"]) == 2
    assert said in capsys.readouterr().err
    for given, wanted in (("~/h", None), (str(tmp_path / "h"), tmp_path / "h")):
        monkeypatch.setenv("TIERMEM_HOME", given)  # an absolute home given needs no HOME
        if wanted is not None:
            assert (tiermem_home(), default_data_dir()) == (wanted, wanted / "postgres")
            continue
        with pytest.raises(HomeNotDirectoryError) as tilde_refused:
            tiermem_home()
        assert str(tilde_refused.value).startswith(
            "TIERMEM_HOME is ~/h, but ~ names no home: HOME is 'rel', a relative path; ")
    assert list(tmp_path.iterdir()) == []


def _dot_slash_tilde_given(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, home: str,
                           tilde: str, named: str) -> None:
    """TIERMEM_HOME=./TILDE/h given in ``tmp_path`` with HOME=``home``, where TILDE/h
    expands to ``tmp_path/named/h``, which exists."""
    monkeypatch.setenv("HOME", home)
    monkeypatch.chdir(tmp_path)
    (tmp_path / named / "h").mkdir(parents=True)
    monkeypatch.setattr(Path, "expanduser", lambda self: tmp_path / named / Path(
        *self.parts[1:]) if self.parts[:1] == (tilde,) else self)
    monkeypatch.setenv("TIERMEM_HOME", f"./{tilde}/h")


@pytest.mark.parametrize("home", ["rel", ""])
def test_a_tilde_after_a_dot_slash_is_made_here_when_home_names_no_home(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, home: str) -> None:
    # With HOME=rel, TIERMEM_HOME=./~/h was refused saying to give ~/h, which names no
    # home then, as ./rel/h (or /h) was read as the home's ~/h.
    from tiermem.agent.home import tiermem_home

    _dot_slash_tilde_given(monkeypatch, tmp_path, home, "~", "rel")
    assert tiermem_home() == tmp_path / "~" / "h"


@pytest.mark.parametrize("home", ["rel", ""])
def test_a_users_home_after_a_dot_slash_is_offered_whatever_home_is(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, home: str) -> None:
    # ~bob/h names bob's home whatever HOME is: before, with HOME=rel (or empty),
    # TIERMEM_HOME=./~bob/h was not refused, and an empty home made here, not bob's.
    from tiermem.user_paths import NoRootError, tiermem_root

    _dot_slash_tilde_given(monkeypatch, tmp_path, home, "~bob", "bob")
    with pytest.raises(NoRootError, match=r"\(the directory ~bob here\) does not exist, "
                                          r"while ~bob/h \(.*/bob/h\) does; give ~bob/h "):
        tiermem_root()
    assert not (tmp_path / "~bob").exists()
