"""``guarded``: a public method of an object with a storage backend (``store``) runs one
thread at a time, not at all once the store is closed, and a backend failure that
escapes it becomes a tiermem error.

Reads can step through a driver's cursor after the statement returned, outside
any transaction, so a failure there reaches the method itself; the backend's
``translate_error`` says what the user can do about it. A method may answer without
reaching the store (a search with no word to look for, a fact held in memory); once
the store is closed it raises StoreClosedError all the same, so a closed memory never
answers as if it were empty.

On a read-only memory the outermost guarded call first catches up with the writer
(``StorageBackend.catch_up``): what a writer committed meanwhile, an erasure
included, is what the call reads, never a copy held from an earlier call. The
catch-up and the call run in one read transaction (``StorageBackend.reading``), so
a commit made during the call is not half seen: the core reloaded before it and
the rows read after it would disagree (a core over its limit in one ``facts()``).
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable, Iterator
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from tiermem.memory.errors import StoreClosedError
from tiermem.memory.store.contract import StorageBackend


class _HasStore(Protocol):
    @property
    def store(self) -> StorageBackend:
        ...


#: What a closed memory says to every call.
CLOSED = "this memory is closed; open it again to use it"
#: Guarded calls running on each store (its lock held), so only the outermost catches up.
_calls_in_progress: weakref.WeakKeyDictionary[StorageBackend, int] = weakref.WeakKeyDictionary()

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
        store = self.store
        with _backend_errors(store), store.lock:
            if open_only and store.closed:
                raise StoreClosedError(CLOSED)
            depth = _calls_in_progress.get(store, 0)
            # Not mid-call: one call reads one state.
            outermost = open_only and depth == 0 and store.read_only
            with store.reading() if outermost else contextlib.nullcontext():
                _calls_in_progress[store] = depth + 1
                try:
                    return method(self, *args, **kwargs)
                finally:
                    _calls_in_progress[store] = depth

    return call


@contextlib.contextmanager
def _backend_errors(store: StorageBackend) -> Iterator[None]:
    """A backend failure that escapes the block as the tiermem error the backend maps it
    to (``translate_error``), when it maps it."""
    try:
        yield
    except Exception as exc:
        mapped = store.translate_error(exc)
        if mapped is None:
            raise
        raise mapped from exc


def read_fresh(store: StorageBackend) -> None:
    """Before a tier answers from what it holds in memory (``len(memory.core)``, iterating
    core, ``core.used``) outside any guarded call: as ``guarded`` would, refuse once the
    store is closed, and on a read-only memory catch up with the writer first, so an
    erasure the writer committed is not shown from an earlier read. Inside a guarded call
    it only checks the store is open: the call caught up already."""
    if store.closed:
        raise StoreClosedError(CLOSED)
    if not store.read_only:
        return
    with _backend_errors(store), store.lock:
        if _calls_in_progress.get(store, 0) == 0:
            with store.reading():  # the reload reads one state
                pass
