"""The suite's network guard (tests/network_guard.py) holds in the tests' own process and in
every Python process they start, however its environment was built."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from network_guard import NetworkBlockedError, guarded_env

ROOT = Path(__file__).resolve().parents[1]

#: Exits 3 when the guard refused both a connection to a documentation address (TEST-NET-1)
#: and a name lookup; 5 when either went through, and 1 saying what else stopped it.
PROBE = """
import socket, sys
try:
    with socket.socket() as sock:
        sock.settimeout(5)
        sock.connect(("192.0.2.1", 443))
except Exception as exc:
    if type(exc).__name__ != "NetworkBlockedError":
        sys.exit(f"4: {exc!r}")
else:
    sys.exit(5)
try:
    socket.getaddrinfo("example.com", 443)
except Exception as exc:
    sys.exit(3 if type(exc).__name__ == "NetworkBlockedError" else f"4: {exc!r}")
sys.exit(5)
"""


def test_the_tests_own_process_reaches_loopback_only() -> None:
    with socket.socket() as sock, pytest.raises(NetworkBlockedError, match="may not reach"):
        sock.connect(("192.0.2.1", 443))
    with socket.socket() as sock, pytest.raises(NetworkBlockedError, match="may not reach"):
        sock.connect_ex(("192.0.2.1", 443))
    with pytest.raises(NetworkBlockedError, match=r"may not resolve 'example\.com'"):
        socket.getaddrinfo("example.com", 443)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        with socket.create_connection(listener.getsockname()) as client:
            assert client.getpeername() == listener.getsockname()


@pytest.mark.parametrize("env", [
    None,  # the run's own environment, inherited
    {**os.environ, "PYTHONPATH": str(ROOT)},  # as most tests give it: PYTHONPATH replaced
    {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)},  # or built from nothing
], ids=["inherited", "pythonpath-replaced", "fresh"])
def test_a_child_process_reaches_loopback_only(env: dict[str, str] | None) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 3, done.stderr


def test_a_grandchild_process_reaches_loopback_only() -> None:
    parent = ("import subprocess, sys\n"
              f"sys.exit(subprocess.run([sys.executable, '-c', {PROBE!r}]).returncode)\n")
    done = subprocess.run([sys.executable, "-c", parent], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 3, done.stderr


def test_a_child_exec_d_with_a_guarded_environment_reaches_loopback_only() -> None:
    # As tests/test_chat_pty.py starts its chat: fork, then execve with an environment of
    # its own, which goes through guarded_env.
    env = guarded_env({"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)})
    pid = os.fork()
    if pid == 0:
        try:
            os.execve(sys.executable, [sys.executable, "-c", PROBE], env)
        finally:
            os._exit(99)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 3
