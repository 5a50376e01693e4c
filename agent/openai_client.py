"""The client for any OpenAI-compatible chat-completions endpoint.

OpenAI itself, Ollama, vLLM, llama.cpp server and LM Studio all speak
``POST {base_url}/chat/completions`` with ``tools``; this module drives them
through the ``openai`` package and turns every failure into a ``ProviderError``
that says what to do.

Retries are done here, not by the ``openai`` package (it is built with
``max_retries=0``), so that which failures are retried, how long we wait and how
many attempts were made are explicit, documented and testable:

- retried: HTTP 429, 408 and 5xx, timeouts, connection failures;
- not retried: every other 4xx (bad request, auth, unknown model) and
  responses that are not chat completions, because sending them again cannot
  help;
- the wait before retry ``n`` (1-based) is ``min(max_delay, base_delay * 2**(n-1))``
  scaled by a random factor in [0.5, 1) so that clients that failed together do
  not retry together; a server's ``Retry-After`` (or ``retry-after-ms``) replaces
  that wait, capped at ``max_retry_after`` so a misconfigured server cannot stall
  a turn for minutes.

``context_window`` comes from the configuration when given; otherwise from
``default_context_window``, a small table keyed by model-name prefix. The table
is deliberately conservative for local models: a server often runs a model with
a shorter context than the model supports, and overestimating it makes requests
fail instead of triggering summarisation.
"""

from __future__ import annotations

import email.utils
import json
import math
import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from agent.errors import LLMConfigError, ProviderError, ProviderErrorKind
from agent.llm import Completion, ToolCall, Usage

if TYPE_CHECKING:
    from openai import OpenAI

OPENAI_API_BASE_URL = "https://api.openai.com/v1"
#: Sent to servers that ignore keys; the ``openai`` package refuses an empty one.
PLACEHOLDER_API_KEY = "not-needed"

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 3
DEFAULT_BASE_DELAY = 0.5
DEFAULT_MAX_DELAY = 8.0
DEFAULT_MAX_RETRY_AFTER = 30.0

ENV_MODEL = "TIERMEM_MODEL"
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
ENV_CONTEXT_WINDOW = "TIERMEM_CONTEXT_WINDOW"

# Checked in order against the lower-cased model name after any "org/" prefix,
# so "openai/gpt-4o-mini" and "gpt-4o-2024-08-06" both match "gpt-4o".
_CONTEXT_WINDOWS: tuple[tuple[str, int], ...] = (
    ("gpt-4o", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("llama3", 8_192),
    ("qwen2.5", 32_768),
)
FALLBACK_CONTEXT_WINDOW = 8_192

# Server error text is quoted in our messages; beyond this it is noise.
_MAX_DETAIL = 300


def default_context_window(model: str) -> int:
    """The context window assumed for ``model`` when the configuration gives none.

    ``gpt-4o*`` 128000, ``gpt-4.1*`` 1047576, ``gpt-5*`` 400000,
    ``o1*``/``o3*``/``o4*`` 200000, ``llama3*`` 8192, ``qwen2.5*`` 32768, and
    8192 for anything else. Set ``LLMConfig.context_window`` (or
    ``TIERMEM_CONTEXT_WINDOW``) to the value the server really runs with.
    """
    name = model.strip().rsplit("/", 1)[-1].lower()
    for prefix, window in _CONTEXT_WINDOWS:
        if name.startswith(prefix):
            return window
    return FALLBACK_CONTEXT_WINDOW


def normalize_base_url(url: str) -> str:
    """Accept ``http://host:port``, ``http://host:port/v1`` and similar; return the API root.

    A bare host gets ``/v1`` appended because every supported server mounts
    the API there; any other path is kept, since some gateways use their own
    prefix (``/api/v1``). A pasted ``.../chat/completions`` is trimmed back to
    the root.
    """
    text = url.strip()
    if not text:
        raise LLMConfigError("the base URL is empty; expected e.g. http://127.0.0.1:11434/v1")
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LLMConfigError(
            f"base URL {url!r} is not an http(s) URL; expected e.g. http://127.0.0.1:11434/v1"
        )
    path = parts.path.rstrip("/")
    if path.endswith("/chat/completions"):
        path = path[: -len("/chat/completions")]
    if not path:
        path = "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def is_openai_url(url: str) -> bool:
    """Whether ``url`` is OpenAI's own API, which needs a real key."""
    host = (urlsplit(url).hostname or "").lower()
    return host == "openai.com" or host.endswith(".openai.com")


@dataclass(frozen=True)
class LLMConfig:
    """Everything needed to build an ``OpenAIClient``.

    ``context_window=None`` means "look the model up in the default table".
    """

    model: str
    base_url: str = OPENAI_API_BASE_URL
    api_key: str = field(default=PLACEHOLDER_API_KEY, repr=False)
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_MAX_RETRIES
    context_window: int | None = None

    @property
    def effective_context_window(self) -> int:
        if self.context_window is not None:
            return self.context_window
        return default_context_window(self.model)


def _clean(value: str | None) -> str | None:
    # An exported-but-empty variable means "unset", not "empty model name".
    if value is None:
        return None
    value = value.strip()
    return value or None


def resolve_llm_config(
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    env: Mapping[str, str] | None = None,
    *,
    timeout: float | None = None,
    max_retries: int | None = None,
    context_window: int | None = None,
) -> LLMConfig | None:
    """Combine flags and environment into an ``LLMConfig``, or None for offline mode.

    Each argument beats its environment variable: ``model`` over
    ``TIERMEM_MODEL``, ``base_url`` over ``OPENAI_BASE_URL``, ``api_key`` over
    ``OPENAI_API_KEY``, ``context_window`` over ``TIERMEM_CONTEXT_WINDOW``.
    ``env`` defaults to ``os.environ``.

    Returns None when neither a model nor a base URL is configured: the caller
    then uses the offline policy. Raises ``LLMConfigError`` when the
    configuration is half there: a base URL without a model, or OpenAI's API
    without a key. Local servers (any other base URL) need no key.
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    model = _clean(model) or _clean(environ.get(ENV_MODEL))
    raw_url = _clean(base_url) or _clean(environ.get(ENV_BASE_URL))
    key = _clean(api_key) or _clean(environ.get(ENV_API_KEY))

    if model is None and raw_url is None:
        return None

    url = normalize_base_url(raw_url) if raw_url is not None else OPENAI_API_BASE_URL
    if model is None:
        raise LLMConfigError(
            f"a base URL is set ({url}) but no model: pass --model NAME or set {ENV_MODEL} "
            f"to one of the models the server lists at {url}/models"
        )
    if is_openai_url(url):
        if key is None:
            raise LLMConfigError(
                f"model {model!r} would be sent to the OpenAI API ({url}), which needs a key: "
                f"set {ENV_API_KEY}, or point --base-url / {ENV_BASE_URL} at a local "
                f"OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio)"
            )
    elif key is None:
        key = PLACEHOLDER_API_KEY

    if context_window is None:
        raw_window = _clean(environ.get(ENV_CONTEXT_WINDOW))
        if raw_window is not None:
            try:
                context_window = int(raw_window)
            except ValueError:
                raise LLMConfigError(
                    f"{ENV_CONTEXT_WINDOW}={raw_window!r} is not a whole number of tokens"
                ) from None
    if context_window is not None and context_window <= 0:
        raise LLMConfigError(
            f"the context window must be a positive token count, not {context_window}"
        )

    return LLMConfig(
        model=model,
        base_url=url,
        api_key=key,
        timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
        max_retries=DEFAULT_MAX_RETRIES if max_retries is None else max_retries,
        context_window=context_window,
    )


class OpenAIClient:
    """``LLMClient`` for an OpenAI-compatible chat-completions endpoint.

    ``sleep`` and ``rng`` are injectable so tests can run retries instantly and
    check the waits. After each ``complete`` call, ``last_attempts`` holds the
    number of HTTP requests it made; ``total_usage`` accumulates token usage
    over the client's life.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        context_window: int | None = None,
        base_delay: float = DEFAULT_BASE_DELAY,
        max_delay: float = DEFAULT_MAX_DELAY,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        if not model.strip():
            raise LLMConfigError("the model name is empty: pass --model NAME or set TIERMEM_MODEL")
        if max_retries < 0:
            raise LLMConfigError(f"max_retries must be 0 or more, not {max_retries}")
        if not timeout > 0:
            raise LLMConfigError(f"the request timeout must be positive, not {timeout}")
        if context_window is not None and context_window <= 0:
            raise LLMConfigError(f"the context window must be positive, not {context_window}")

        self.model = model.strip()
        self.base_url = normalize_base_url(base_url) if base_url else OPENAI_API_BASE_URL
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.context_window = context_window or default_context_window(self.model)
        self.name = f"openai:{self.model} @ {self.base_url}"
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.max_retry_after = max_retry_after
        self.last_attempts = 0
        self.total_usage = Usage()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._responses = 0

        # Imported here so that offline use never pays for loading the SDK.
        import openai

        try:
            # Key and URL are always passed explicitly so the SDK does not pick
            # up OPENAI_API_KEY / OPENAI_BASE_URL behind resolve_llm_config's back.
            self._client: OpenAI = openai.OpenAI(
                api_key=api_key or PLACEHOLDER_API_KEY,
                base_url=self.base_url,
                timeout=self.timeout,
                max_retries=0,
            )
        except openai.OpenAIError as exc:
            raise LLMConfigError(f"cannot build a client for {self.base_url}: {exc}") from exc

    @classmethod
    def from_config(cls, config: LLMConfig, **kwargs: Any) -> OpenAIClient:
        """Build a client from a resolved config; ``kwargs`` (e.g. ``sleep``) pass through."""
        return cls(
            config.model,
            base_url=config.base_url,
            api_key=config.api_key,
            timeout=config.timeout,
            max_retries=config.max_retries,
            context_window=config.context_window,
            **kwargs,
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OpenAIClient({self.name!r}, context_window={self.context_window})"

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        """One chat completion, retried on transient failures; see the module docstring."""
        import openai

        request: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            # OpenAI rejects ``tools: []``; omitting it means the same thing.
            request["tools"] = tools

        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            self.last_attempts = attempt
            try:
                response = self._client.chat.completions.create(**request)
            except (openai.OpenAIError, ValueError) as exc:
                error = self._provider_error(exc, attempt)
                if not error.retryable or attempt == attempts:
                    raise error from exc
                self._sleep(self._retry_delay(attempt, exc))
                continue
            completion = self._parse(response, attempt)
            self.total_usage = self.total_usage + completion.usage
            return completion
        raise AssertionError("unreachable: the loop returns or raises")

    def _retry_delay(self, attempt: int, exc: Exception) -> float:
        server_delay = _retry_after_seconds(exc)
        if server_delay is not None:
            return min(server_delay, self.max_retry_after)
        backoff = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        return backoff * (0.5 + 0.5 * self._rng.random())

    def _provider_error(self, exc: Exception, attempts: int) -> ProviderError:
        import openai

        tries = f"{attempts} attempt" + ("" if attempts == 1 else "s")
        url = self.base_url

        if isinstance(exc, openai.APITimeoutError):
            return ProviderError(
                f"{url} did not answer within {self.timeout:g} s ({tries}): the model may be "
                f"loading or overloaded; raise the request timeout or try a smaller model",
                kind="timeout",
                attempts=attempts,
            )
        if isinstance(exc, openai.APIConnectionError):
            cause = f" ({exc.__cause__})" if exc.__cause__ else ""
            return ProviderError(
                f"could not reach {url}{cause}: is the server running? "
                f"set --base-url / OPENAI_BASE_URL",
                kind="connection",
                attempts=attempts,
            )
        if isinstance(exc, openai.APIStatusError):
            return self._status_error(exc, attempts, tries)
        return ProviderError(
            f"{url} sent a response that is not a chat completion: {_truncate(str(exc))}; "
            f"check that the base URL points at an OpenAI-compatible /v1 API",
            kind="bad_response",
            attempts=attempts,
        )

    def _status_error(self, exc: Any, attempts: int, tries: str) -> ProviderError:
        status: int = exc.status_code
        detail = _server_message(exc)
        said = f"; the server said: {detail}" if detail else ""
        url = self.base_url
        kind: ProviderErrorKind
        if status == 429:
            kind = "rate_limit"
            text = (
                f"{url} is rate-limiting requests (HTTP 429, {tries}): wait a minute and "
                f"try again, or check the account's quota"
            )
        elif status == 408:
            kind = "timeout"
            text = f"{url} timed out the request (HTTP 408, {tries}): try again later"
        elif status >= 500:
            kind = "server"
            text = (
                f"{url} failed with HTTP {status} ({tries}): the server is having problems; "
                f"check its logs or try again later"
            )
        elif status == 401:
            kind = "auth"
            text = f"{url} rejected the API key (HTTP 401): check OPENAI_API_KEY"
        elif status == 403:
            kind = "auth"
            text = (
                f"{url} refused access to model {self.model!r} (HTTP 403): check that the "
                f"API key (OPENAI_API_KEY) may use this model"
            )
        elif status == 404:
            kind = "bad_request"
            text = (
                f"{url} has no model {self.model!r} or no /chat/completions endpoint (HTTP 404): "
                f"check --model / TIERMEM_MODEL against {url}/models, and that the base URL "
                f"ends in /v1"
            )
        else:
            kind = "bad_request"
            text = f"{url} refused the request (HTTP {status})"
            lowered = detail.lower()
            if "context" in lowered and ("length" in lowered or "window" in lowered):
                text += (
                    f"; the prompt is longer than {self.model!r} accepts: set a smaller "
                    f"context window so the agent summarises sooner"
                )
        return ProviderError(text + said, kind=kind, status_code=status, attempts=attempts)

    def _parse(self, response: Any, attempts: int) -> Completion:
        choices = getattr(response, "choices", None) or [None]
        choice = choices[0]
        message = getattr(choice, "message", None)
        if message is None:
            raise ProviderError(
                f"{self.base_url} answered without a message (no choices in the response); "
                f"check that the base URL points at an OpenAI-compatible /v1 API",
                kind="bad_response",
                attempts=attempts,
            )
        self._responses += 1
        calls = [
            self._tool_call(raw, index)
            for index, raw in enumerate(getattr(message, "tool_calls", None) or [])
        ]
        legacy = getattr(message, "function_call", None)
        if not calls and legacy is not None:
            # Older servers still answer with the deprecated single function_call.
            calls.append(
                ToolCall(
                    id=f"call_{self._responses}_0",
                    name=str(getattr(legacy, "name", "") or ""),
                    arguments=_as_text(getattr(legacy, "arguments", "")),
                )
            )
        content = getattr(message, "content", None)
        return Completion(
            content=content if content is None or isinstance(content, str) else str(content),
            tool_calls=calls,
            usage=_usage(getattr(response, "usage", None)),
            model=str(getattr(response, "model", "") or self.model),
            finish_reason=getattr(choice, "finish_reason", None),
        )

    def _tool_call(self, raw: Any, index: int) -> ToolCall:
        # Some local servers omit ids; the loop needs one to pair the result with the call.
        call_id = getattr(raw, "id", None) or f"call_{self._responses}_{index}"
        function = getattr(raw, "function", None)
        custom = getattr(raw, "custom", None)
        if function is not None:
            name = getattr(function, "name", "")
            arguments = getattr(function, "arguments", "")
        elif custom is not None:
            name = getattr(custom, "name", "")
            arguments = getattr(custom, "input", "")
        else:
            name, arguments = "", ""
        return ToolCall(id=str(call_id), name=str(name or ""), arguments=_as_text(arguments))


def _as_text(arguments: Any) -> str:
    # A few servers send arguments as a JSON object rather than JSON text.
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def _usage(raw: Any) -> Usage:
    if raw is None:
        return Usage()
    prompt = int(getattr(raw, "prompt_tokens", 0) or 0)
    completion = int(getattr(raw, "completion_tokens", 0) or 0)
    total = int(getattr(raw, "total_tokens", 0) or 0) or prompt + completion
    return Usage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total)


def _truncate(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 3] + "..."


def _server_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        message = body.get("message") or body.get("error") or body.get("detail")
        if isinstance(message, Mapping):
            message = message.get("message")
        if message:
            return _truncate(str(message))
    if isinstance(body, str) and body.strip():
        return _truncate(body)
    return ""


def _retry_after_seconds(exc: Exception) -> float | None:
    """The wait a 429/503 response asked for, in seconds, or None."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        seconds: float | None
        try:
            seconds = float(value) * scale
        except ValueError:
            seconds = _http_date_delay(value) if name == "retry-after" else None
        if seconds is not None and math.isfinite(seconds):
            return max(0.0, seconds)
    return None


def _http_date_delay(value: str) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - time.time()
