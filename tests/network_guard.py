"""The suite's network guard: no socket of a test, or of a process a test starts, reaches
past loopback.

In the test process conftest installs it for every test (an autouse fixture). Every Python
process the suite starts installs it as it starts: conftest puts ``network_guard_site`` (a
``sitecustomize``) first on ``PYTHONPATH``, in the run's environment and in each
``env=`` given to ``subprocess`` (tests replace ``PYTHONPATH`` to pick the checkout), so a
child that tried a real address fails at once with ``NetworkBlockedError``. A child that
calls ``os.execve`` itself passes its environment through ``guarded_env``.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The folder whose ``sitecustomize`` installs the guard in a child process.
SITE_DIR = Path(__file__).resolve().parent / "network_guard_site"

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


class NetworkBlockedError(RuntimeError):
    pass


def _is_loopback(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def guarded_connect(self: socket.socket, address: Any) -> Any:
    if not _is_loopback(address):
        raise NetworkBlockedError(f"tests may not reach the network (tried {address!r})")
    return _real_connect(self, address)


def guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    if not _is_loopback(address):
        raise NetworkBlockedError(f"tests may not reach the network (tried {address!r})")
    return _real_connect_ex(self, address)


def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    name = host.decode() if isinstance(host, bytes) else host
    if name not in (None, "localhost") and not _is_loopback((name,)):
        raise NetworkBlockedError(f"tests may not resolve {name!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


def install() -> None:
    """Block the network in this process for good (a child's ``sitecustomize`` calls it)."""
    socket.socket.connect = guarded_connect
    socket.socket.connect_ex = guarded_connect_ex
    socket.getaddrinfo = guarded_getaddrinfo


def guarded_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with the guard's ``sitecustomize`` first on its ``PYTHONPATH``."""
    given = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(SITE_DIR)]
    return {**env, "PYTHONPATH": os.pathsep.join([str(SITE_DIR), *given])}
