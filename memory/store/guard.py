"""``guarded``: a public method of an object with a storage backend (``store``) runs one
thread at a time, not at all once the store is closed, and a backend failure that
escapes it becomes a tiermem error.

Reads can step through a driver's cursor after the statement returned, outside
any transaction, so a failure there reaches the method itself; the backend's
``translate_error`` says what the user can do about it. A method may answer without
reaching the store (a search with no word to look for, a fact held in memory); once
the store is closed it raises StoreClosedError all the same, so a closed memory never
answers as if it were empty.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from tiermem.memory.errors import StoreClosedError
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
    lock), StoreClosedError once the store is closed, and backend failures become tiermem
    errors."""
    return _guard(method, open_only=True)


def guarded_close(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """``guarded`` for the method that closes the store, which may run again once it is."""
    return _guard(method, open_only=False)


def _guard(method: Callable[Concatenate[S, P], R],
           open_only: bool) -> Callable[Concatenate[S, P], R]:
    @functools.wraps(method)
    def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            with self.store.lock:
                if open_only and self.store.closed:
                    raise StoreClosedError("this memory is closed; open it again to use it")
                return method(self, *args, **kwargs)
        except Exception as exc:
            mapped = self.store.translate_error(exc)
            if mapped is None:
                raise
            raise mapped from exc

    return call
