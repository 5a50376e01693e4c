"""``guarded``: a public method of an object with a storage backend (``store``) runs one
thread at a time, and a backend failure that escapes it becomes a tiermem error.

Reads can step through a driver's cursor after the statement returned, outside
any transaction, so a failure there reaches the method itself; the backend's
``translate_error`` says what the user can do about it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from tiermem.memory.store.contract import StorageBackend


class _HasStore(Protocol):
    @property
    def store(self) -> StorageBackend:
        ...


S = TypeVar("S", bound=_HasStore)
P = ParamSpec("P")
R = TypeVar("R")


def guarded(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """A public method of an object with a ``store``: one thread at a time (the store's
    lock), and backend failures become tiermem errors."""

    @functools.wraps(method)
    def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            with self.store.lock:
                return method(self, *args, **kwargs)
        except Exception as exc:
            mapped = self.store.translate_error(exc)
            if mapped is None:
                raise
            raise mapped from exc

    return call
