"""What a server says about itself: the context window it really runs with.

Local servers run a model with whatever window they were started with
(``llama-server -c 4096``, ``--n_ctx``, Ollama's ``num_ctx``), which is often far
below what the model supports, so the window is asked of the server rather than
guessed from the model's name. Where each server says it:

- llama.cpp's ``llama-server``: ``GET /props`` (``default_generation_settings.n_ctx``,
  or ``n_ctx`` in older builds), and ``meta.n_ctx`` in ``GET /v1/models``. Its
  ``meta.n_ctx_train`` is the window the model was trained with, not the
  server's, and is never used;
- vLLM: ``max_model_len`` in ``GET /v1/models``; other servers
  ``context_length`` or ``context_window`` there;
- Ollama: ``context_length`` of the loaded model in ``GET /api/ps``, or a
  ``num_ctx`` set in the model's parameters (``POST /api/show``);
- LM Studio: ``loaded_context_length`` in ``GET /api/v0/models/{model}``;
- llama-cpp-python says nothing (its window appears only in the error for an
  over-long prompt), so its users pass ``--context-window``.

The precedence is: ``--context-window`` / ``TIERMEM_CONTEXT_WINDOW``, then the
server, then OpenAI's published windows for its own models, then 8192 with a
notice saying it was assumed and how to set it. Discovery is bounded (a short
timeout per request, and it stops at the first answer or when the server
cannot be reached), remembered for the rest of the process, and never fatal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from tiermem.agent.base_url import is_openai_url
from tiermem.agent.config import (
    ENV_CONTEXT_WINDOW,
    FALLBACK_CONTEXT_WINDOW,
    LLMConfig,
    known_context_window,
)
from tiermem.agent.http_json import Unreachable, request_json, shown_url

#: Seconds each discovery request may take; these are tiny GETs on a server we are about to use.
DISCOVERY_TIMEOUT = 3.0

#: Keys in a /v1/models entry that hold the window the server runs the model with.
_MODEL_WINDOW_KEYS = ("max_model_len", "context_length", "context_window",
                      "loaded_context_length")
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class WindowFact:
    """A context window and where it came from (``source``, shown to the user)."""

    tokens: int
    source: str
    #: False when it was assumed rather than stated by the configuration or the server.
    known: bool = True


@dataclass(frozen=True)
class Discovery:
    """What asking the server gave: its window, if it said, and whether it answered at all."""

    window: WindowFact | None
    reached: bool


_cache: dict[tuple[str, str], Discovery] = {}


def clear_cache() -> None:
    """Forget what servers said (each process asks each server once)."""
    _cache.clear()


def server_root(base_url: str) -> str:
    """The server's own root: the API root without its trailing ``/v1``.

    llama.cpp's ``/props`` and Ollama's ``/api/...`` live there, beside the
    OpenAI-compatible API.
    """
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def discover_context_window(base_url: str, model: str, api_key: str | None = None,
                            timeout: float = DISCOVERY_TIMEOUT) -> Discovery:
    """Ask the server at ``base_url`` for the window it runs ``model`` with.

    Remembered per (base URL, model) for the life of the process; every
    failure (no such endpoint, a timeout, an odd body) only means "not said".
    """
    key = (base_url, model)
    if key not in _cache:
        try:
            _cache[key] = Discovery(_ask_server(base_url, model, api_key, timeout), True)
        except Unreachable:
            _cache[key] = Discovery(None, False)
    return _cache[key]


def _ask_server(base_url: str, model: str, api_key: str | None,
                timeout: float) -> WindowFact | None:
    root = server_root(base_url)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    probes: tuple[tuple[str, str, Callable[[Any, str], int | None], str], ...] = (
        ("GET", f"{root}/props", _from_props, "llama.cpp /props"),
        ("GET", f"{base_url}/models", _from_models, "/v1/models"),
        ("GET", f"{root}/api/ps", _from_ollama_ps, "Ollama /api/ps"),
        ("POST", f"{root}/api/show", _from_ollama_show, "Ollama /api/show num_ctx"),
        ("GET", f"{root}/api/v0/models/{quote(model, safe='')}", _from_lm_studio,
         "LM Studio /api/v0/models"),
    )
    for method, url, read, source in probes:
        payload = {"model": model, "name": model} if method == "POST" else None
        # Unreachable (down, or too busy for a tiny GET) ends the asking: the
        # other endpoints would fare no better.
        answer = request_json(method, url, payload, timeout=timeout, headers=headers)
        tokens = read(answer.body, model) if answer.ok else None
        if tokens is not None:
            return WindowFact(tokens, source)
    return None


def served_model(base_url: str, model: str, api_key: str | None = None,
                 timeout: float = DISCOVERY_TIMEOUT) -> str | None:
    """The id the server at ``base_url`` lists for ``model`` in ``GET /v1/models``, or None
    (not said, not reached, or OpenAI's own API, whose names are its models).

    A llama.cpp server answers to any model name with the one model it loaded and lists
    that model by its file (or ``--alias``): ``--model local`` names no model, this does.
    """
    if is_openai_url(base_url):
        return None
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        answer = request_json("GET", f"{base_url}/models", None, timeout=timeout,
                              headers=headers)
    except Unreachable:
        return None
    body = answer.body if answer.ok else None
    entry = _model_entry(body.get("data") if isinstance(body, dict) else None, model)
    found = entry.get("id") if entry is not None else None
    return found.strip() if isinstance(found, str) and found.strip() else None


def _window(value: Any) -> int | None:
    # bool is an int; a window of "true" tokens is a malformed body, not 1.
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        tokens = int(value)
    except ValueError:
        return None
    return tokens if tokens > 0 else None


def _from_props(body: Any, model: str) -> int | None:
    if not isinstance(body, dict):
        return None
    settings = body.get("default_generation_settings")
    if isinstance(settings, dict) and _window(settings.get("n_ctx")):
        return _window(settings.get("n_ctx"))
    return _window(body.get("n_ctx"))


def _model_entry(entries: Any, model: str) -> dict[str, Any] | None:
    """The listing's entry for ``model``; the only entry when there is one (llama.cpp servers
    answer to any model name with the one model they loaded)."""
    if not isinstance(entries, list):
        return None
    found = [e for e in entries if isinstance(e, dict)]
    for entry in found:
        if model in (entry.get("id"), entry.get("name"), entry.get("model")):
            return entry
    return found[0] if len(found) == 1 else None


def _from_models(body: Any, model: str) -> int | None:
    entry = _model_entry(body.get("data") if isinstance(body, dict) else None, model)
    if entry is None:
        return None
    for key in _MODEL_WINDOW_KEYS:
        if _window(entry.get(key)):
            return _window(entry.get(key))
    meta = entry.get("meta")
    return _window(meta.get("n_ctx")) if isinstance(meta, dict) else None


def _from_ollama_ps(body: Any, model: str) -> int | None:
    entry = _model_entry(body.get("models") if isinstance(body, dict) else None, model)
    return None if entry is None else _window(entry.get("context_length"))


def _from_ollama_show(body: Any, model: str) -> int | None:
    # model_info's "<arch>.context_length" is the training window, not Ollama's num_ctx.
    parameters = body.get("parameters") if isinstance(body, dict) else None
    if not isinstance(parameters, str):
        return None
    match = _NUM_CTX.search(parameters)
    return _window(match.group(1)) if match else None


def _from_lm_studio(body: Any, model: str) -> int | None:
    return _window(body.get("loaded_context_length")) if isinstance(body, dict) else None


def resolve_context_window(config: LLMConfig) -> tuple[WindowFact, Discovery | None]:
    """The window to use for ``config``, by the precedence in the module docstring, and
    what the server said (None when it was not asked)."""
    if config.context_window is not None:
        flag = WindowFact(config.context_window, "--context-window / " + ENV_CONTEXT_WINDOW)
        return flag, None
    asked = None
    if not is_openai_url(config.base_url):
        asked = discover_context_window(config.base_url, config.model, config.api_key)
        if asked.window is not None:
            return asked.window, asked
    known = known_context_window(config.model)
    if known is not None:
        return WindowFact(known, f"OpenAI's published window for {config.model}"), asked
    return WindowFact(FALLBACK_CONTEXT_WINDOW, "assumed", known=False), asked


def assumed_window_notice(base_url: str, window: int, reached: bool = True) -> str:
    """The one line saying the window was assumed, and how to set it."""
    said = ("does not report its context window" if reached
            else "did not answer when asked for its context window")
    return (f"{shown_url(base_url)} {said}; assuming {window} tokens (pass --context-window N "
            f"or set {ENV_CONTEXT_WINDOW} to the window the server runs with)")


def with_server_window(config: LLMConfig, note: Callable[[str], None]) -> LLMConfig:
    """``config`` with its context window settled; ``note`` hears when it had to be assumed."""
    fact, asked = resolve_context_window(config)
    if not fact.known:
        note(assumed_window_notice(config.base_url, fact.tokens,
                                   asked is None or asked.reached))
    return replace(config, context_window=fact.tokens)
