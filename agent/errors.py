"""Exceptions raised by the LLM client layer.

A ``ProviderError`` is what the agent loop sees when a model endpoint fails
after the client has done all the retrying it is going to do. Its ``kind`` lets
the loop and the CLI react without parsing text, and its message tells the user
what to change. A provider error never becomes an assistant message or a memory.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from tiermem.memory.errors import TiermemError

ProviderErrorKind = Literal[
    "timeout", "rate_limit", "server", "connection", "auth", "bad_request", "bad_response",
    "context_exceeded",
]

PROVIDER_ERROR_KINDS: frozenset[str] = frozenset(get_args(ProviderErrorKind))

# Kinds where the same request may succeed if sent again later.
_TRANSIENT: frozenset[str] = frozenset({"timeout", "rate_limit", "server", "connection"})


class ProviderError(TiermemError):
    """A model endpoint failed; ``kind`` says how and ``retryable`` whether to try again.

    ``retryable`` describes the failure, not the history: a ``rate_limit`` error
    raised after every retry was used is still ``retryable=True`` (a later turn
    may succeed), while ``auth`` never is. ``context_window`` is the window a
    ``context_exceeded`` error named, when it named one; ``hint`` what to do when the
    failure says more than its kind (a web page where the API should be: the URL);
    ``retry_wait`` the seconds before sending it again when the failure needs longer than
    the client's short backoff (a model still loading), more for each later attempt;
    ``may_pass`` that a later request may succeed though this one sent again cannot (the
    process running the model died: the next request starts it afresh); ``busy`` that the
    server refused it as too busy to take it (Ollama's 503 "server busy"), as a rate limit
    does.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: ProviderErrorKind,
        retryable: bool | None = None,
        status_code: int | None = None,
        attempts: int = 1,
        context_window: int | None = None,
        hint: str | None = None,
        retry_wait: float | None = None,
        may_pass: bool = False,
        busy: bool = False,
    ) -> None:
        if kind not in PROVIDER_ERROR_KINDS:
            raise ValueError(f"unknown provider error kind {kind!r}")
        super().__init__(message)
        self.message = message
        self.kind: ProviderErrorKind = kind
        self.retryable = kind in _TRANSIENT if retryable is None else retryable
        self.status_code = status_code
        self.attempts = attempts
        self.context_window = context_window
        self.hint = hint
        self.retry_wait = retry_wait
        self.may_pass = may_pass
        self.busy = busy

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only fields would otherwise be lost when the error crosses a
        # process boundary (benchmark workers).
        return (
            _rebuild_provider_error,
            (self.message, self.kind, self.retryable, self.status_code, self.attempts,
             self.context_window, self.hint, self.retry_wait, self.may_pass, self.busy),
        )

    def __repr__(self) -> str:
        return (
            f"ProviderError(kind={self.kind!r}, status_code={self.status_code!r}, "
            f"attempts={self.attempts}, message={self.message!r})"
        )


def _rebuild_provider_error(
    message: str,
    kind: ProviderErrorKind,
    retryable: bool,
    status_code: int | None,
    attempts: int,
    context_window: int | None = None,
    hint: str | None = None,
    retry_wait: float | None = None,
    may_pass: bool = False,
    busy: bool = False,
) -> ProviderError:
    return ProviderError(
        message, kind=kind, retryable=retryable, status_code=status_code, attempts=attempts,
        context_window=context_window, hint=hint, retry_wait=retry_wait, may_pass=may_pass,
        busy=busy,
    )


class LLMConfigError(TiermemError, ValueError):
    """The model, base URL or key given cannot make a working client."""


class ScriptExhaustedError(TiermemError):
    """A ``ScriptedModel`` was called more times than it has steps."""


class ScriptUnusedError(TiermemError):
    """A ``ScriptedModel`` finished with steps that were never consumed."""
