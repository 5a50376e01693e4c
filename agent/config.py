"""Configuration for the OpenAI-compatible client: flags and environment to an ``LLMConfig``.

``resolve_llm_config`` combines command-line flags with the environment
(``TIERMEM_MODEL``, ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``,
``TIERMEM_CONTEXT_WINDOW``, ``TIERMEM_MAX_TOKENS``, ``TIERMEM_TIMEOUT``,
``TIERMEM_ENCODING``, ``TIERMEM_TEXT_TOOL_CALLS``) and
returns None when neither a model nor a base URL is set, which means offline
mode. agent/base_url.py reads the URL forms servers document and tells OpenAI's own
API, which needs a real key, from local servers, which need none.

``context_window`` comes from the configuration when given (``--context-window``
or ``TIERMEM_CONTEXT_WINDOW``). Otherwise agent/server_facts.py asks the server,
and only then does ``default_context_window`` apply: OpenAI's published windows
for its own model names, else a conservative 8192. A model's name says nothing
about the window a local server runs it with (a Qwen2.5 supports 32,768 tokens
and is often served with 4,096), and overestimating it makes requests fail
instead of triggering summarisation.

``timeout`` is per request: 60 s for OpenAI's API, 300 s for any other server,
because a local model on a small CPU can take minutes over a long prompt.

``max_tokens`` is the reply budget: sent with every request and kept free in
the window, so a prompt never fills the window and leaves the model no room to
answer. ``encoding`` is the tokenizer the context is counted with: the model's
own (``encoding_for_model``: o200k_base for the gpt-4o, gpt-4.1 and o-series
families, cl100k_base otherwise) unless configured. ``text_tool_calls`` is
``auto`` (tool calls a model writes as text in its reply are recognised and
run, agent/text_tool_calls.py) or ``off``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from tiermem.agent.base_url import OPENAI_API_BASE_URL, is_openai_url, normalize_base_url
from tiermem.agent.errors import LLMConfigError
from tiermem.memory.text.tokenizer import SUPPORTED_ENCODINGS, encoding_for_model

#: Sent to servers that ignore keys; the ``openai`` package refuses an empty one.
PLACEHOLDER_API_KEY = "not-needed"

#: Per-request timeouts in seconds: OpenAI's API, and any other (usually local) server.
OPENAI_TIMEOUT = 60.0
LOCAL_TIMEOUT = 300.0
DEFAULT_MAX_RETRIES = 3

ENV_MODEL = "TIERMEM_MODEL"
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
ENV_CONTEXT_WINDOW = "TIERMEM_CONTEXT_WINDOW"
ENV_MAX_TOKENS = "TIERMEM_MAX_TOKENS"
ENV_TIMEOUT = "TIERMEM_TIMEOUT"
ENV_ENCODING = "TIERMEM_ENCODING"
ENV_TEXT_TOOL_CALLS = "TIERMEM_TEXT_TOOL_CALLS"

TextToolCallMode = Literal["auto", "off"]
TEXT_TOOL_CALL_MODES: tuple[TextToolCallMode, ...] = ("auto", "off")

DEFAULT_MAX_TOKENS = 1024
#: Reasoning models spend hidden reasoning tokens from the same budget before they answer.
REASONING_MAX_TOKENS = 8192
_REASONING_MODELS = re.compile(r"^(?:o\d+|gpt-5)(?:[-.].*)?$", re.IGNORECASE)

# OpenAI's published windows, checked in order against the lower-cased model name
# after any "org/" prefix, so "openai/gpt-4o-mini" and "gpt-4o-2024-08-06" both
# match "gpt-4o". Open models are deliberately absent: their window is the
# server's setting, not the model's.
_OPENAI_CONTEXT_WINDOWS: tuple[tuple[str, int], ...] = (
    ("gpt-4o", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
)
FALLBACK_CONTEXT_WINDOW = 8_192


def known_context_window(model: str) -> int | None:
    """OpenAI's published window for ``model``, or None for any other model.

    ``gpt-4o*`` 128000, ``gpt-4.1*`` 1047576, ``gpt-5*`` 400000,
    ``o1*``/``o3*``/``o4*`` 200000.
    """
    name = _bare_model_name(model)
    for prefix, window in _OPENAI_CONTEXT_WINDOWS:
        if name.startswith(prefix):
            return window
    return None


def default_context_window(model: str) -> int:
    """The window assumed for ``model`` when neither the configuration nor the server says.

    OpenAI's published window for its models (``known_context_window``), else
    8192. Pass ``--context-window`` (or set ``TIERMEM_CONTEXT_WINDOW``) to the
    value the server really runs with.
    """
    known = known_context_window(model)
    return FALLBACK_CONTEXT_WINDOW if known is None else known


def default_timeout(base_url: str) -> float:
    """The per-request timeout when none is configured: 60 s for OpenAI, 300 s elsewhere."""
    return OPENAI_TIMEOUT if is_openai_url(base_url) else LOCAL_TIMEOUT


def _bare_model_name(model: str) -> str:
    return model.strip().rsplit("/", 1)[-1].lower()


def is_reasoning_model(model: str) -> bool:
    """Whether ``model`` is an o-series or gpt-5 model: its reply budget also pays for
    its hidden reasoning, and OpenAI takes that budget as ``max_completion_tokens``."""
    return bool(_REASONING_MODELS.match(_bare_model_name(model)))


def default_max_tokens(model: str, context_window: int) -> int:
    """The reply budget used when none is configured.

    1024 tokens (8192 for reasoning models), but never more than a quarter of
    the window, so small local models keep most of theirs for the prompt.
    """
    wanted = REASONING_MAX_TOKENS if is_reasoning_model(model) else DEFAULT_MAX_TOKENS
    return max(1, min(wanted, context_window // 4))


def check_max_tokens(max_tokens: int, context_window: int) -> int:
    """``max_tokens`` if it leaves at least half the window for the prompt."""
    if max_tokens < 1:
        raise LLMConfigError(
            f"max_tokens (the reply budget) must be a positive token count, not {max_tokens}"
        )
    if max_tokens > context_window // 2:
        raise LLMConfigError(
            f"max_tokens={max_tokens} would leave less than half of the {context_window}-token "
            f"context window for the prompt; lower --max-tokens / {ENV_MAX_TOKENS}, or raise "
            f"--context-window / {ENV_CONTEXT_WINDOW} to the window the server really runs with"
        )
    return max_tokens


def resolve_encoding(name: str | None, model: str) -> str:
    """The tokenizer encoding to count ``model``'s prompts with.

    ``name`` (``o200k_base``, ``cl100k_base``, or the short ``o200k`` / ``cl100k``)
    wins; None means the model's own, from its name.
    """
    if name is None:
        return encoding_for_model(model)
    wanted = name.strip().lower()
    full = wanted if wanted.endswith("_base") else f"{wanted}_base"
    if full not in SUPPORTED_ENCODINGS:
        raise LLMConfigError(
            f"unknown tokenizer encoding {name!r}; use one of {', '.join(SUPPORTED_ENCODINGS)} "
            f"(or unset {ENV_ENCODING} to pick it from the model name)"
        )
    return full


def check_text_tool_calls(mode: str) -> TextToolCallMode:
    """``mode`` if it is ``auto`` or ``off`` (any case)."""
    wanted = mode.strip().lower()
    if wanted not in TEXT_TOOL_CALL_MODES:
        raise LLMConfigError(
            f"text tool calls must be 'auto' or 'off', not {mode!r} "
            f"(--text-tool-calls / {ENV_TEXT_TOOL_CALLS})"
        )
    return wanted


@dataclass(frozen=True)
class LLMConfig:
    """Everything needed to build an ``OpenAIClient``.

    ``context_window=None`` means "look the model up in the default table"
    (agent/server_facts.py asks the server first), ``max_tokens=None`` "the
    default reply budget for this model and window" (``default_max_tokens``),
    ``timeout=None`` "the default for this base URL" (``default_timeout``) and
    ``encoding=None`` "the model's own encoding".
    """

    model: str
    base_url: str = OPENAI_API_BASE_URL
    api_key: str = field(default=PLACEHOLDER_API_KEY, repr=False)
    timeout: float | None = None
    max_retries: int = DEFAULT_MAX_RETRIES
    context_window: int | None = None
    max_tokens: int | None = None
    encoding: str | None = None
    text_tool_calls: TextToolCallMode = "auto"

    def __post_init__(self) -> None:
        # Checked now, so a bad value is reported before the first turn, not during it;
        # against the window only once it is known: without one the server is asked for
        # it (agent/server_facts.py ``with_server_window``, which checks again), and a
        # budget too large for a window assumed before asking may fit the server's.
        if self.max_tokens is not None and self.context_window is not None:
            check_max_tokens(self.max_tokens, self.context_window)
        elif self.max_tokens is not None and self.max_tokens < 1:
            check_max_tokens(self.max_tokens, 0)
        if self.timeout is not None:
            check_timeout(self.timeout)
        resolve_encoding(self.encoding, self.model)
        check_text_tool_calls(self.text_tool_calls)

    @property
    def effective_context_window(self) -> int:
        if self.context_window is not None:
            return self.context_window
        return default_context_window(self.model)

    @property
    def effective_timeout(self) -> float:
        return default_timeout(self.base_url) if self.timeout is None else self.timeout

    @property
    def effective_max_tokens(self) -> int:
        window = self.effective_context_window
        if self.max_tokens is None:
            return default_max_tokens(self.model, window)
        return self.max_tokens

    @property
    def effective_encoding(self) -> str:
        return resolve_encoding(self.encoding, self.model)


def _clean(value: str | None) -> str | None:
    # An exported-but-empty variable means "unset", not "empty model name".
    if value is None:
        return None
    value = value.strip()
    return value or None


def names_a_model(model: str | None, base_url: str | None,
                  env: Mapping[str, str] | None = None) -> bool:
    """Whether the flags or the environment (``os.environ`` by default) name a model or a
    server to send it to; with neither, the offline policy runs."""
    environ: Mapping[str, str] = os.environ if env is None else env
    return any(_clean(value) is not None for value in (
        model, base_url, environ.get(ENV_MODEL), environ.get(ENV_BASE_URL)))


def resolve_llm_config(
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    env: Mapping[str, str] | None = None,
    *,
    timeout: float | None = None,
    max_retries: int | None = None,
    context_window: int | None = None,
    max_tokens: int | None = None,
    encoding: str | None = None,
    text_tool_calls: str | None = None,
) -> LLMConfig | None:
    """Combine flags and environment into an ``LLMConfig``, or None for offline mode.

    Each argument beats its environment variable: ``model`` over
    ``TIERMEM_MODEL``, ``base_url`` over ``OPENAI_BASE_URL``, ``api_key`` over
    ``OPENAI_API_KEY``, ``context_window`` over ``TIERMEM_CONTEXT_WINDOW``,
    ``max_tokens`` over ``TIERMEM_MAX_TOKENS``, ``timeout`` over
    ``TIERMEM_TIMEOUT``, ``encoding`` over ``TIERMEM_ENCODING``, ``text_tool_calls``
    over ``TIERMEM_TEXT_TOOL_CALLS``. ``env`` defaults to ``os.environ``.

    Returns None when neither a model nor a base URL is configured: the caller
    then uses the offline policy. Raises ``LLMConfigError`` when the
    configuration is half there: a base URL without a model, or OpenAI's API
    without a key. Local servers (any other base URL) need no key.
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    if not names_a_model(model, base_url, environ):
        return None
    model = _clean(model) or _clean(environ.get(ENV_MODEL))
    raw_url = _clean(base_url) or _clean(environ.get(ENV_BASE_URL))
    key = _clean(api_key) or _clean(environ.get(ENV_API_KEY))

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
        context_window = _token_count(environ, ENV_CONTEXT_WINDOW)
    if context_window is not None and context_window <= 0:
        raise LLMConfigError(
            f"the context window must be a positive token count, not {context_window}; "
            f"pass --context-window N or set {ENV_CONTEXT_WINDOW}"
        )
    if max_tokens is None:
        max_tokens = configured_max_tokens(environ)
    if timeout is None:
        timeout = _seconds(environ, ENV_TIMEOUT)

    return LLMConfig(
        model=model,
        base_url=url,
        api_key=key,
        timeout=timeout,
        max_retries=DEFAULT_MAX_RETRIES if max_retries is None else max_retries,
        context_window=context_window,
        max_tokens=max_tokens,
        encoding=_clean(encoding) or _clean(environ.get(ENV_ENCODING)),
        text_tool_calls=check_text_tool_calls(
            _clean(text_tool_calls) or _clean(environ.get(ENV_TEXT_TOOL_CALLS)) or "auto"),
    )


def configured_max_tokens(env: Mapping[str, str] | None = None) -> int | None:
    """The reply budget ``TIERMEM_MAX_TOKENS`` sets, or None when unset; ``LLMConfigError``
    when it is not a whole number. ``env`` defaults to ``os.environ``."""
    return _token_count(os.environ if env is None else env, ENV_MAX_TOKENS)


def configured_context_window(env: Mapping[str, str] | None = None) -> int | None:
    """The context window ``TIERMEM_CONTEXT_WINDOW`` sets, or None when unset;
    ``LLMConfigError`` when it is not a positive whole number. ``env`` defaults to
    ``os.environ``. For commands that take no ``--context-window`` (the doctor): the
    message names only the variable."""
    window = _token_count(os.environ if env is None else env, ENV_CONTEXT_WINDOW)
    if window is not None and window <= 0:
        raise LLMConfigError(
            f"the context window must be a positive token count, not {window}: set "
            f"{ENV_CONTEXT_WINDOW} to the window the server runs with, or unset it to use "
            f"the one the server reports"
        )
    return window


def configured_encoding(env: Mapping[str, str] | None = None) -> str | None:
    """The tokenizer encoding ``TIERMEM_ENCODING`` names (its full name), or None when
    unset; ``LLMConfigError`` when it is none tiermem knows."""
    name = _clean((os.environ if env is None else env).get(ENV_ENCODING))
    return None if name is None else resolve_encoding(name, "")


def _token_count(environ: Mapping[str, str], name: str) -> int | None:
    number = _env_number(environ, name, int, "a whole number of tokens")
    return None if number is None else int(number)


def _seconds(environ: Mapping[str, str], name: str) -> float | None:
    return _env_number(environ, name, float, "a number of seconds")


def _env_number(environ: Mapping[str, str], name: str, parse: Callable[[str], float],
                what: str) -> float | None:
    raw = _clean(environ.get(name))
    if raw is None:
        return None
    try:
        return parse(raw)
    except ValueError:
        raise LLMConfigError(f"{name}={raw!r} is not {what}") from None


def check_timeout(seconds: float) -> float:
    """``seconds`` if it is a usable per-request timeout."""
    if not (math.isfinite(seconds) and seconds > 0):
        raise LLMConfigError(
            f"the request timeout must be a positive number of seconds, not {seconds}; "
            f"pass --timeout SECONDS or set {ENV_TIMEOUT}"
        )
    return seconds
