"""Nested transactions with hooks, as every backend keeps them (memory/store/contract/).

The outermost ``transaction()`` is one database transaction, an inner one a
savepoint. The begin, commit, rollback and hook order is the same whatever the
database, so it lives here once; a backend supplies the statements.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tiermem.memory.errors import StoreError

Hook = Callable[[], None]


class NestedTransactions:
    """Depth, hooks and the begin / commit / rollback protocol of one connection.

    A backend calls ``_init_transactions()`` when it opens and implements
    ``_begin``, ``_commit``, ``_release``, ``_roll_back`` and the contract's
    ``translate_error``; its ``transaction()`` checks that it may write, then
    runs the body through ``_nested()``.
    """

    def _init_transactions(self) -> None:
        self._depth = 0
        self._begin_hooks: list[Hook] = []
        self._commit_hooks: list[Hook] = []
        self._rollback_hooks: list[Hook] = []
        self._release_hooks: list[Hook] = []
        self._elsewhere_hooks: list[Hook] = []
        self._elsewhere_checks: list[Hook] = []
        self._commit_checks: list[Hook] = []
        self._catch_up_owed = False  # a catch-up that raised is run again next time
        self._catching_up = False  # its hooks are running: what they read is caught up

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    @property
    def depth(self) -> int:
        """How many transactions and savepoints are open."""
        return self._depth

    def on_begin(self, hook: Hook) -> None:
        """Call ``hook`` when an outermost transaction begins."""
        self._begin_hooks.append(hook)

    def on_commit(self, hook: Hook) -> None:
        """Call ``hook`` after the outermost transaction commits."""
        self._commit_hooks.append(hook)

    def check_at_commit(self, check: Hook) -> None:
        """Run ``check`` once, just before the current outermost transaction commits: for
        what one write leaves for a later one in the same transaction to complete. If it
        raises, the transaction rolls back."""
        self._commit_checks.append(check)

    def on_rollback(self, hook: Hook) -> None:
        """Call ``hook`` after any rollback, so in-memory state can reload."""
        self._rollback_hooks.append(hook)

    def on_release(self, hook: Hook) -> None:
        """Call ``hook`` after a savepoint is released into its enclosing transaction."""
        self._release_hooks.append(hook)

    def on_change_elsewhere(self, hook: Hook, *, check: bool = False) -> None:
        """Call ``hook`` when ``catch_up`` finds another session's commit, after the
        rollback hooks have reloaded what they keep; a ``check`` (one that refuses what
        this session cannot read, such as vectors of another embedder) runs first."""
        (self._elsewhere_checks if check else self._elsewhere_hooks).append(hook)

    def catch_up(self) -> bool:
        """Reload in-memory state if another session committed since the last call (or
        the open): the checks, the rollback hooks, which reload from the database, then
        the ``on_change_elsewhere`` hooks. True if it reloaded; if one raised, the next
        call runs them all again.

        Only a read-only store is changed by another session; a writer's returns False.
        """
        if self._depth or self._catching_up:
            return False
        if not self._changed_elsewhere() and not self._catch_up_owed:
            return False
        self._catch_up_owed = self._catching_up = True
        try:
            for hook in (*self._elsewhere_checks, *self._rollback_hooks,
                         *self._elsewhere_hooks):
                hook()
        finally:
            self._catching_up = False
        self._catch_up_owed = False
        return True

    def _nested(self) -> Iterator[None]:
        """The body of one transaction or savepoint.

        COMMIT is inside the same guard as the body: a commit can fail (a full
        disk is reported at COMMIT), and then in-memory state must roll back
        exactly as for a failed body.
        """
        depth = self._depth
        savepoint = f"sp{depth}" if depth else None
        self._begin(savepoint)
        if savepoint is None:
            self._commit_checks = []  # a rolled-back transaction's are void
            for hook in self._begin_hooks:
                hook()
        self._depth += 1
        try:
            yield None
            if savepoint is None:
                checks, self._commit_checks = self._commit_checks, []
                for check in checks:
                    check()
                self._commit()
        except BaseException as exc:
            self._depth = depth
            try:
                self._roll_back(savepoint)
            finally:
                for hook in self._rollback_hooks:
                    hook()
            mapped = self.translate_error(exc)
            if mapped is not None:
                raise mapped from exc
            raise
        self._depth = depth
        if savepoint is None:
            for hook in self._commit_hooks:
                hook()
        else:
            self._release(savepoint)
            for hook in self._release_hooks:
                hook()

    # -- what a backend supplies --------------------------------------------------------
    def _begin(self, savepoint: str | None) -> None:
        """Open the transaction (``savepoint`` None) or the savepoint."""
        raise NotImplementedError

    def _commit(self) -> None:
        raise NotImplementedError

    def _release(self, savepoint: str) -> None:
        raise NotImplementedError

    def _roll_back(self, savepoint: str | None) -> None:
        """Undo the savepoint, or the whole transaction if one is still open."""
        raise NotImplementedError

    def _changed_elsewhere(self) -> bool:
        """Whether another session committed since the last call (read-only stores)."""
        raise NotImplementedError

    def translate_error(self, exc: BaseException) -> StoreError | None:
        """The tiermem error a failure is reported as, if any."""
        raise NotImplementedError
