"""The client for any OpenAI-compatible chat-completions endpoint.

OpenAI itself, Ollama, vLLM, llama.cpp server and LM Studio all speak
``POST {base_url}/chat/completions`` with ``tools``; this module drives them
through the ``openai`` package and turns every failure into a ``ProviderError``
that says what to do.

Retries are done here, not by the ``openai`` package (it is built with
``max_retries=0``), so that which failures are retried, how long we wait and how
many attempts were made are explicit, documented and testable:

- retried: HTTP 429 and 5xx, connection failures (a connect timeout among
  them: the request never reached the server, so sending it again costs the
  server nothing), and timeouts waiting for the answer (HTTP 408, a gateway's
  504 or 524 among them) from OpenAI's API (as OpenAI or Azure OpenAI serves
  it); such a timeout of any other server is
  final: that server is one machine running the model, a request that took the
  whole timeout was being worked on, and sending it again only queues the same
  work behind it (four attempts at the 300 s default would keep a user waiting
  20 minutes for an error);
- connecting has its own timeout, ``min(timeout, CONNECT_TIMEOUT)`` (10 s), for
  taking a connection from the SDK's pool too: a server that is up accepts a
  connection at once, while an address nothing answers (a LAN or VPN host that
  is off) would otherwise hold each of the four attempts for the whole request
  timeout;
- not retried: every other 4xx (bad request, auth, unknown model), responses
  that are not chat completions, and errors whose text says the prompt is over
  the context window, the request failed validation, or the server was not
  started for tool calls, whatever their status (agent/server_errors.py:
  llama-cpp-python dresses a validation error as a 500; agent/server_setup.py:
  llama-server without --jinja answers 500), because sending them again cannot help;
- the wait before retry ``n`` (1-based) is ``min(max_delay, base_delay * 2**(n-1))``
  scaled by a random factor in [0.5, 1) so that clients that failed together do
  not retry together; a server's ``Retry-After`` (or ``retry-after-ms``, the longer of both, or
  a wait its body asks, agent/body_waits.py) is
  the wait instead, capped at ``max_retry_after`` and a minute in all for the request so a
  misconfigured server cannot stall a turn for minutes (one asked longer than a minute ends
  the request at once, agent/sdk_errors.py; a wait over a few seconds is
  told as it starts; ``Retry-After: 0`` leaves the backoff); the waits after 429s (and a
  busy server's 503s) take,
  too, from a minute the client spends on rate limits until the server answers or a
  minute passes without them, after which such a refusal is final; a server still loading
  its model (llama.cpp's 503 "Loading model", agent/server_setup.py) is waited for
  longer, as it asks no wait itself, a minute in all until it answers again or a minute
  passes without such waits, after which such a refusal of a later request is final; a wait
  of either kind holds both minutes spent (agent/loading_wait.py).

Every request carries the reply budget (``max_tokens``; ``max_completion_tokens``
for OpenAI's reasoning models, which reject the older name), which the agent
also keeps free in the context window. A request with tools says
``tool_choice: "auto"``: llama-cpp-python's function-calling chat formats drop
the tools from the prompt without it. No message goes out with ``content:
null``: some servers refuse it (llama-cpp-python answers HTTP 500), so it is
sent as ``""``. Tool-call ids go out as nine letters or digits, one per call, as
Mistral's chat templates demand (agent/wire_ids.py).

When a request offered tools and the server returned none, tool calls the
model wrote as text in its content are recognised (agent/text_tool_calls.py)
and returned as tool calls marked ``from_text``, unless ``text_tool_calls`` is
``"off"``.

Configuration (``LLMConfig``, ``resolve_llm_config``, the context-window
table, the reply budget and the tokenizer encoding) lives in agent/config.py.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tiermem.agent.base_url import OPENAI_API_BASE_URL, is_openai_service, normalize_base_url
from tiermem.agent.client_arguments import check_types
from tiermem.agent.completion_calls import (
    with_offered_names,
    with_text_tool_calls,
    without_null_content,
)
from tiermem.agent.config import (
    DEFAULT_MAX_RETRIES,
    PLACEHOLDER_API_KEY,
    LLMConfig,
    check_max_tokens,
    check_text_tool_calls,
    check_timeout,
    default_context_window,
    default_max_tokens,
    default_timeout,
    is_reasoning_model,
    resolve_encoding,
)
from tiermem.agent.errors import LLMConfigError, ProviderError
from tiermem.agent.http_json import error_without_secrets, shown_url, without_secrets
from tiermem.agent.llm import Completion, Usage, unique_id_prefix
from tiermem.agent.loading_wait import LoadingWaits, too_busy
from tiermem.agent.response import MalformedResponseError, parse_completion
from tiermem.agent.retry_after import retry_after_seconds
from tiermem.agent.sdk_errors import provider_error
from tiermem.agent.server_errors import is_web_page, not_json_error, web_page_error
from tiermem.agent.wire_ids import with_wire_ids

if TYPE_CHECKING:
    from openai import OpenAI

__all__ = [
    "CONNECT_TIMEOUT", "DEFAULT_BASE_DELAY", "DEFAULT_MAX_DELAY", "DEFAULT_MAX_RETRY_AFTER",
    "OpenAIClient",
]

#: The longest wait, in seconds, for a connection to the server (never longer than the
#: request timeout).
CONNECT_TIMEOUT = 10.0
DEFAULT_BASE_DELAY = 0.5
DEFAULT_MAX_DELAY = 8.0
DEFAULT_MAX_RETRY_AFTER = 30.0
#: Refusals that tell nothing of the model server: a rate limit (a proxy's, maybe) and a
#: gateway's (Cloudflare's 520 to 524 among them), whose server behind may still be loading
#: its model.
_NO_ANSWER = (None, 429, 502, 503, 504, 520, 521, 522, 523, 524)


class OpenAIClient:
    """``LLMClient`` for an OpenAI-compatible chat-completions endpoint.

    ``sleep``, ``rng`` and ``clock`` (which tells when a minute passed without a wait for
    a rate limit) are injectable so tests can run retries instantly and check the waits.
    After each ``complete`` call, ``last_attempts`` holds the
    number of HTTP requests it made; ``total_usage`` accumulates token usage
    over the client's life. ``wait_notice`` is told each wait for a server still
    loading its model, and any other wait of more than a few seconds, as it starts
    (agent/loading_wait.py). ``max_tokens`` (the reply
    budget) and ``encoding`` (the tokenizer for counting prompts) default to the model's;
    see agent/config.py.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        context_window: int | None = None,
        max_tokens: int | None = None,
        encoding: str | None = None,
        text_tool_calls: str = "auto",
        base_delay: float = DEFAULT_BASE_DELAY,
        max_delay: float = DEFAULT_MAX_DELAY,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        retry_timeouts: bool | None = None,
        wait_notice: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        check_types(model=model, base_url=base_url, api_key=api_key, timeout=timeout,
                    max_retries=max_retries, context_window=context_window,
                    max_tokens=max_tokens, encoding=encoding, text_tool_calls=text_tool_calls)
        if not model.strip():
            raise LLMConfigError("the model name is empty: pass --model NAME or set TIERMEM_MODEL")
        if max_retries < 0:
            raise LLMConfigError(f"max_retries must be 0 or more, not {max_retries}")
        if context_window is not None and context_window <= 0:
            raise LLMConfigError(f"the context window must be positive, not {context_window}")

        self.model = model.strip()
        self.base_url = normalize_base_url(base_url) if base_url else OPENAI_API_BASE_URL
        self.timeout = float(default_timeout(self.base_url) if timeout is None
                             else check_timeout(timeout))
        self.connect_timeout = min(self.timeout, CONNECT_TIMEOUT)
        self.max_retries = max_retries
        #: Whether a request whose answer timed out is sent again (module docstring);
        #: None: only to OpenAI's API. A connect timeout is always retried.
        self.retry_timeouts = (is_openai_service(self.base_url) if retry_timeouts is None
                               else retry_timeouts)
        self.context_window = context_window or default_context_window(self.model)
        self.max_tokens = (default_max_tokens(self.model, self.context_window)
                           if max_tokens is None
                           else check_max_tokens(max_tokens, self.context_window))
        self.encoding = resolve_encoding(encoding, self.model)
        self.text_tool_calls = check_text_tool_calls(text_tool_calls)
        self._budget_param = (
            "max_completion_tokens" if is_reasoning_model(self.model) else "max_tokens"
        )
        self.shown_url = shown_url(self.base_url)
        self.name = f"openai:{self.model} @ {self.shown_url}"
        #: What an error message must never repeat (a server may quote them back).
        self._secrets = (api_key, urlsplit(self.base_url).password)
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.max_retry_after = max_retry_after
        self.last_attempts = 0
        self.total_usage = Usage()
        self._sleep = sleep
        self.loading = LoadingWaits(wait_notice, clock=clock)
        self._rng = rng or random.Random()
        self._responses = 0
        self._call_ids = unique_id_prefix("call")  # see _made_up_id

        # Imported here so that offline use never pays for loading the SDK.
        import openai

        try:
            # Key and URL are always passed explicitly so the SDK does not pick
            # up OPENAI_API_KEY / OPENAI_BASE_URL behind resolve_llm_config's back.
            self._client: OpenAI = openai.OpenAI(
                api_key=api_key or PLACEHOLDER_API_KEY,
                base_url=self.base_url,
                # The SDK's own Timeout class (its HTTP library's: httpx, or a fork of it).
                timeout=openai.Timeout(self.timeout, connect=self.connect_timeout,
                                       pool=self.connect_timeout),
                max_retries=0,
            )
        except openai.OpenAIError as exc:
            raise LLMConfigError(without_secrets(
                f"cannot build a client for {self.shown_url}: {exc}", *self._secrets)) from exc

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
            max_tokens=config.max_tokens,
            encoding=config.encoding,
            text_tool_calls=config.text_tool_calls,
            **kwargs,
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"OpenAIClient({self.name!r}, context_window={self.context_window}, "
                f"max_tokens={self.max_tokens})")

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        """One chat completion, retried on transient failures; see the module docstring."""
        import openai

        request: dict[str, Any] = {
            "model": self.model,
            "messages": with_wire_ids([without_null_content(m) for m in messages]),
            self._budget_param: self.max_tokens,
        }
        if tools:
            # OpenAI rejects ``tools: []``; omitting it means the same thing.
            request["tools"] = tools
            request["tool_choice"] = "auto"

        attempts = self.max_retries + 1
        spent_before = self.loading.begin()
        for attempt in range(1, attempts + 1):
            self.last_attempts = attempt
            try:
                # The raw body, not the SDK's model: the SDK builds its objects without
                # checking types, so a malformed answer would surface later as a
                # KeyError or TypeError deep in the turn instead of a ProviderError.
                raw = self._client.chat.completions.with_raw_response.create(**request)
                body = self._json(raw.http_response, attempt)
            except (openai.OpenAIError, ValueError, RecursionError) as exc:
                error = error_without_secrets(
                    provider_error(exc, attempt, url=self.shown_url, model=self.model,
                                   timeout=self.timeout, connect_timeout=self.connect_timeout),
                    self._secrets)
                if error.retry_wait is None and error.status_code not in _NO_ANSWER:
                    self.loading.answered()  # a refusal from the server itself: it is loaded
                    spent_before = False  # later loading waits are this request's own
                final = error.kind == "timeout" and not self.retry_timeouts
                delay = (None if not error.retryable or final or attempt == attempts
                         else self._retry_delay(attempt, exc, error, spent_before))
                if delay is None:
                    raise self.loading.ended(error, spent_before) from exc
                self._sleep(delay)
                continue
            self.loading.answered()
            completion = self._parse(body, attempt)
            if tools:
                completion = with_offered_names(completion, tools)
            if tools and self.text_tool_calls == "auto":
                completion = with_text_tool_calls(completion, tools, self._made_up_id)
            self.total_usage = self.total_usage + completion.usage
            return completion
        raise AssertionError("unreachable: the loop returns or raises")

    def _json(self, response: Any, attempts: int) -> Any:
        # ``response`` is the SDK's HTTP library's (httpx, or a fork of it, by version).
        try:
            return response.json()
        except ValueError:
            content_type = response.headers.get("content-type", "")
            if is_web_page(content_type, response.text):
                raise error_without_secrets(web_page_error(self.shown_url, attempts),
                                       self._secrets) from None
            if "json" not in content_type.lower():
                raise error_without_secrets(
                    not_json_error(self.shown_url, attempts, content_type, response.text),
                    self._secrets) from None
            raise

    def _retry_delay(self, attempt: int, exc: Exception, error: ProviderError,
                     spent_before: bool) -> float | None:
        """The wait before attempt ``attempt + 1`` (agent/loading_wait.py): a loading model's,
        cut to the budget left and none once it is spent (None, no attempt more, for a
        request begun with it spent, whatever the server asks); else the server's
        ``Retry-After``, up to a minute in all for the request; else the short backoff. After
        a 429 or a busy server's 503, None (no attempt more) once the client's minute for
        them is spent."""
        asked = retry_after_seconds(exc)
        capped = None if asked is None else min(asked, self.max_retry_after)
        if too_busy(error):
            return self.loading.rate_limited(capped, asked, self._backoff(attempt),
                                             error.status_code)
        if error.retry_wait is not None:
            wait = min(error.retry_wait * attempt, self.max_retry_after)
            taken = self.loading.take(wait if capped is None else capped)
            if taken is None and spent_before:
                return None  # the minute was spent on earlier requests: refused at once
        elif asked is not None and capped is not None:
            taken = self.loading.asked(capped, asked, error.status_code)
        else:
            taken = None
        if taken is not None:
            return taken
        backoff = self._backoff(attempt)
        said = f"HTTP {error.status_code}" if error.status_code is not None else error.kind
        self.loading.tell(backoff, f"the request failed ({said})")
        return backoff

    def _backoff(self, attempt: int) -> float:
        backoff = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        return backoff * (0.5 + 0.5 * self._rng.random())

    def _made_up_id(self, index: int) -> str:
        """The id of the ``index``th call in the latest response that sent it without one,
        or wrote it as text (never both: text is read only when no call came)."""
        return f"{self._call_ids}_{self._responses}_{index}"

    def _parse(self, body: Any, attempts: int) -> Completion:
        self._responses += 1
        try:
            return parse_completion(body, model=self.model, call_id=self._made_up_id)
        except MalformedResponseError as exc:
            raise ProviderError(
                f"{self.shown_url} sent a response that is not a chat completion ({exc}); "
                f"check that the base URL points at an OpenAI-compatible /v1 API and that "
                f"the server supports tool calls",
                kind="bad_response",
                attempts=attempts,
            ) from None

