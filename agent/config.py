"""Configuration for the OpenAI-compatible client: flags and environment to an ``LLMConfig``.

``resolve_llm_config`` combines command-line flags with the environment
(``TIERMEM_MODEL``, ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``,
``TIERMEM_CONTEXT_WINDOW``) and returns None when neither a model nor a base
URL is set, which means offline mode. ``normalize_base_url`` accepts the URL
forms servers document and returns the API root; ``is_openai_url`` tells
OpenAI's own API, which needs a real key, from local servers, which need none.

``context_window`` comes from the configuration when given; otherwise from
``default_context_window``, a small table keyed by model-name prefix. The table
is deliberately conservative for local models: a server often runs a model with
a shorter context than the model supports, and overestimating it makes requests
fail instead of triggering summarisation.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from agent.errors import LLMConfigError

OPENAI_API_BASE_URL = "https://api.openai.com/v1"
#: Sent to servers that ignore keys; the ``openai`` package refuses an empty one.
PLACEHOLDER_API_KEY = "not-needed"

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 3

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
