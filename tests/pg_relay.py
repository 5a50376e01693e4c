"""A relay between a client and a PostgreSQL server whose client side can be cut while its
server side stays connected: what a network failure leaves behind, a client that has lost
its connection and a server that keeps the session (and its locks) until it notices."""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
import threading
from collections.abc import Iterator

from psycopg.conninfo import conninfo_to_dict, make_conninfo


class CuttableRelay:
    """Listens on a unix socket of its own and forwards each connection to the server."""

    def __init__(self, dsn: str) -> None:
        parts = conninfo_to_dict(dsn)
        self._port = str(parts.get("port") or 5432)
        host = str(parts.get("host") or "/tmp")
        self._target: tuple[int, str | tuple[str, int]] = (
            (socket.AF_UNIX, os.path.join(host, f".s.PGSQL.{self._port}"))
            if host.startswith("/") else (socket.AF_INET, (host, int(self._port))))
        # A short directory: a unix socket's path has a length limit tmp_path can pass.
        self._dir = tempfile.mkdtemp(prefix="relay")
        self.dsn = make_conninfo(dsn, host=self._dir)
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(os.path.join(self._dir, f".s.PGSQL.{self._port}"))
        self._listener.listen()
        self._clients: list[socket.socket] = []
        self._servers: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = self._listener.accept()
                server = socket.socket(self._target[0], socket.SOCK_STREAM)
                server.connect(self._target[1])
                self._clients.append(client)
                self._servers.append(server)
                for source, sink in ((client, server), (server, client)):
                    threading.Thread(target=_pump, args=(source, sink), daemon=True).start()

    def cut(self) -> None:
        """End every client's connection; the server's side stays open and silent."""
        for client in self._clients:
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        for sock in [self._listener, *self._clients, *self._servers]:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(self._dir, f".s.PGSQL.{self._port}"))
            os.rmdir(self._dir)


def _pump(source: socket.socket, sink: socket.socket) -> None:
    # Only what the client sends or receives ends here: the server's side is never shut, so
    # a cut client leaves the session open on the server.
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)


@contextlib.contextmanager
def cuttable_relay(dsn: str) -> Iterator[CuttableRelay]:
    relay = CuttableRelay(dsn)
    try:
        yield relay
    finally:
        relay.close()
