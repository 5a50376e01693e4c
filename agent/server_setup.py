"""Refusals that say how the model server must be started, or which model it lacks.

A local server refuses a chat for reasons no status code names, and which no
number of attempts changes; only its text tells them apart:

- llama.cpp's ``llama-server`` started without ``--jinja`` answers a request with
  tools HTTP 500 "tools param requires --jinja flag" (builds from before its tool
  calls: "Unsupported param: tools");
- vLLM started without ``--enable-auto-tool-choice`` answers 400 '"auto" tool choice
  requires --enable-auto-tool-choice and --tool-call-parser to be set';
- Ollama answers 400 "registry.ollama.ai/library/NAME does not support tools" for a
  model whose template has no tool calls, and 404 'model "NAME" not found, try pulling
  it first' (newer versions "model 'NAME' not found", typed "not_found_error" or as the
  text alone of its own API's ``{"error": ...}``, either read as Ollama's only at its port,
  11434: a proxy such as LiteLLM types and words a missing model alike) for one it has not
  pulled; a LiteLLM proxy handing it on (its ``x-litellm-`` headers, its code the status as
  text, or its message led by ``litellm.``) lacks the model it names, behind it;
- LM Studio answers "No models loaded" while none is loaded;
- Ollama answers 500 "llama runner process has terminated: signal: killed" (or "exit
  status 2"; older versions "llama runner process no longer running: -1") when the
  process running the model died, mostly for lack of memory, and "model requires more
  system memory" when it cannot load the model at all: no second attempt fares better,
  so neither is sent again; nor is a runner that ended with "no CUDA-capable device is
  detected", whose driver sees no GPU (which is no lack of memory). Of these only a
  runner that died may pass, as a later request starts it afresh; the other two hold
  until the server or the model is changed. A runner that ended with "CUDA-capable
  device(s) is/are busy or unavailable" found its GPU held by another process, which
  passes, and is sent again;
- a server that could not load its model answers 503 "Error loading model: failed to open
  the file" (or "failed to load"): no wait mends that, so it is not sent again;
- Ollama answers 503 "server busy, please try again.  maximum pending requests exceeded"
  when more requests came than it runs and queues: that passes as they end, so it is sent
  again as any 5xx is;
- llama.cpp answers 503 "Loading model" until its model is loaded: that one passes,
  and is sent again as any 5xx is, but after waits long enough for a model to load
  (``LOADING_WAIT`` seconds, then twice and three times that) instead of the short
  backoff that would spend every attempt in a few seconds.

``server_fault`` reads one of these from an error response: what it means, what to do
(the hint the chat shows after "your message is kept in recall as unanswered"), and
whether sending the same request again may help.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from tiermem.agent.errors import ProviderErrorKind

__all__ = ["BUSY_HINT", "FAILED_LOAD", "LOADING_WAIT", "OLLAMA_BUSY_HINT", "OLLAMA_PORT",
           "ServerFault", "at_ollama_port", "ollama_missing_name", "pull_command", "server_fault"]

#: Seconds before a request a server refused while loading its model is sent again; each
#: later attempt waits that much longer (10, 20, 30 s: a minute in all with 4 attempts).
LOADING_WAIT = 10.0
#: The port Ollama listens on unless told otherwise.
OLLAMA_PORT = 11434
#: A server's words, in a 503, for a model it could not load ("Error loading model: failed
#: to open the file"), as against llama.cpp's "Loading model" while it loads one.
FAILED_LOAD = re.compile(
    # "failed to open" alone is also a proxy's "failed to open connection to upstream",
    # which a later attempt may pass: only a model or its file makes it a failed load.
    r"error loading model|failed to (?:load|open)\b[^.;\n]{0,40}?(?:model|\.gguf|\bfile\b)",
    re.IGNORECASE)


@dataclass(frozen=True)
class ServerFault:
    """What a refusal means (``says``, after the server's URL), what to do, and whether a
    later attempt may succeed."""

    says: str
    hint: str
    kind: ProviderErrorKind = "bad_request"
    retryable: bool = False
    #: Seconds before the first attempt again, when the short backoff is too short.
    wait: float | None = None
    #: A later request may succeed though this one sent again cannot: the model is started
    #: afresh. Any other fault that is not retryable holds until the server is changed.
    may_pass: bool = False
    #: The server was too busy to take the request: no fault of its setup.
    busy: bool = False


#: What to do about a server too busy to take a request (a 503 "server busy").
BUSY_HINT = "the server is busy; send it again later, once fewer requests run on it"
#: The same for Ollama's own 503, whose limits are its settings.
OLLAMA_BUSY_HINT = (BUSY_HINT + ". Ollama refuses requests beyond those it runs "
                    "(OLLAMA_NUM_PARALLEL) and queues (OLLAMA_MAX_QUEUE, 512 by default): "
                    "raise them for more")
# Ollama's words, whole, once its queue is full.
_OLLAMA_BUSY = re.compile(r"server busy, please try again\.\s+maximum pending requests exceeded")
_PARSERS = "hermes for Qwen2.5, llama3_json for Llama 3.1, mistral for Mistral"
# Asking again reloads the model into the same memory, which ends the same way.
_SMALLER = ("try a smaller model or quantisation (`ollama pull qwen2.5:3b`, say) or a smaller "
            "context (Ollama's num_ctx or OLLAMA_CONTEXT_LENGTH), or free memory, then send it "
            "again")
# A model that died was running: its log tells why. One too large never started, and the
# server's own message already says how much memory it needs.
_DIED = _SMALLER + "; the server's log says why the model stopped"
_TOOL_MODELS = "qwen2.5, llama3.1 or another tagged \"tools\" in Ollama's library"


def server_fault(status: int, body: Any, model: str, url: str = "",
                 headers: Mapping[str, str] | None = None) -> ServerFault | None:
    """The fault an error response's ``body`` (decoded JSON or text) from the server at
    ``url``, with ``headers``, names, or None. Only the server's message is read: a
    validation error's other fields may quote the request."""
    lowered = _message(body).lower()
    if "requires --jinja" in lowered or "unsupported param: tools" in lowered:
        old = "unsupported param" in lowered
        return ServerFault(
            says=("refuses requests with tools: this llama-server build has no tool calls"
                  if old else "refuses requests with tools: llama-server runs without --jinja"),
            hint=(("update llama.cpp, then " if old else "")
                  + "restart llama-server with --jinja (tool calls need the model's own chat "
                    "template), then send it again"))
    if "--enable-auto-tool-choice" in lowered:
        return ServerFault(
            says="refuses tool calls: vLLM runs without --enable-auto-tool-choice",
            hint=(f"restart vLLM with --enable-auto-tool-choice and the --tool-call-parser "
                  f"for the model ({_PARSERS}), then send it again"))
    if re.search(r"does not support tools\W*$", lowered):
        return ServerFault(
            says=f"refuses tool calls for model {model!r}: its template has none",
            hint=(f"tiermem's memory needs tool calls: pass --model a model that makes them "
                  f"({_TOOL_MODELS}; `ollama pull NAME` fetches one)"))
    if re.search(r"not found,? try pulling it", lowered) or (
            ollama_missing_name(status, body) is not None and at_ollama_port(url)):
        if from_litellm(status, body, headers):
            return _missing_behind_proxy(body, model)
        return ServerFault(
            says=f"has no model {model!r}",
            hint=(f"pull model {model!r} (`{pull_command(model)}`), or pass --model a name "
                  f"`ollama list` shows, then send it again"))
    if "no models loaded" in lowered:
        return ServerFault(
            says="has no model loaded",
            hint=("load a model (`lms load NAME`, or LM Studio's model picker), then send it "
                  "again"))
    if re.search(r"cuda-capable device(?:\(s\) is/are| is|s are) busy or unavailable", lowered):
        # The runner could not open the GPU (another process holds it in exclusive mode):
        # that passes once the GPU is free, so it is sent again as any 5xx is.
        return ServerFault(
            says="could not start the model: its GPU is busy or unavailable", kind="server",
            retryable=True,
            hint=("send it again once the GPU is free: another process may hold it "
                  "(`nvidia-smi` lists them), or the GPU is set to an exclusive compute mode"))
    if "no cuda-capable device is detected" in lowered:
        # The driver sees no GPU at all: not memory, and no later attempt sees one either.
        return ServerFault(
            says="could not start the model: the server sees no GPU (no CUDA-capable device "
                 "is detected)", kind="server",
            hint=("check that the GPU and its driver are visible to the server (`nvidia-smi` "
                  "on its machine; a container needs the GPU passed in), or run the model on "
                  "CPU, then send it again"))
    if re.search(r"runner process (?:has terminated|no longer running)", lowered):
        return ServerFault(
            says="lost the process running the model: it died, often for lack of memory",
            kind="server", hint=_DIED, may_pass=True)
    if "requires more system memory" in lowered:
        return ServerFault(says=f"has too little free memory to load model {model!r}",
                           kind="server", hint=_SMALLER)
    if status == 503 and FAILED_LOAD.search(lowered):
        # Only a restart with the model mended mends it: sending it again fails alike.
        return ServerFault(
            says="could not load its model", kind="server",
            hint=("check the model file path the server was started with (llama-server -m, "
                  "say) and its log, restart it, then send it again"))
    if status == 503 and "server busy" in lowered:
        # Ollama's words once more requests came than it runs and queues (or another
        # server's): that passes as they end, so it is sent again after the short backoff,
        # or the wait its Retry-After asks, as any 5xx is. Only Ollama's own words name its
        # settings.
        if _OLLAMA_BUSY.search(lowered):
            return ServerFault(
                says="is busy: it refuses requests beyond those it runs and queues",
                kind="server", retryable=True, may_pass=True, busy=True, hint=OLLAMA_BUSY_HINT)
        return ServerFault(says="is busy", kind="server", retryable=True, may_pass=True,
                           busy=True, hint=BUSY_HINT)
    if status == 503 and re.fullmatch(r"loading model\W*", lowered.strip()):
        # llama.cpp's own words, whole: "Error loading model" and the like failed to load.
        return ServerFault(
            says="is still loading its model", kind="server", retryable=True,
            wait=LOADING_WAIT,
            hint="send it again once the server has loaded the model (its log says when)")
    return None


def from_litellm(status: int, body: Any, headers: Mapping[str, str] | None) -> bool:
    """Whether a refusal bears a LiteLLM proxy's marks: its ``x-litellm-`` headers (the call
    id, its version), its error's ``code`` the status as text ("404"), as LiteLLM writes it
    and Ollama never does (its errors' code is null, or they are text alone), or its message
    led by the name of LiteLLM's exception ("litellm.NotFoundError: ...")."""
    if any(str(name).lower().startswith("x-litellm-") for name in headers or {}):
        return True
    inner = body.get("error", body) if isinstance(body, Mapping) else None
    return ((isinstance(inner, Mapping) and inner.get("code") == str(status))
            or re.match(r"litellm\.\w+error\b", _message(body).strip(), re.IGNORECASE) is not None)


def _missing_behind_proxy(body: Any, model: str) -> ServerFault:
    """A LiteLLM proxy's refusal in the words of the Ollama behind it, which lacks the model it
    names (the one the proxy maps ``model`` to): pulled there, not where tiermem runs."""
    named = re.search(r"model ['\"](.+?)['\"] not found", _message(body), re.IGNORECASE)
    behind = named.group(1) if named else model
    return ServerFault(
        says=f"has no model {model!r}: the server behind this LiteLLM proxy lacks {behind!r}",
        hint=(f"pull model {behind!r} on the Ollama behind the proxy (`{pull_command(behind)}` "
              f"there), or pass --model a name in the proxy's model list, then send it again"))


def ollama_missing_name(status: int, body: Any) -> str | None:
    """The model a 404 in Ollama's words and shape says it has not pulled, "model 'NAME' not
    found", typed "not_found_error" or as text alone (Ollama's, or a proxy's or another
    server's worded alike), as the server names it; None for any other error."""
    if status != 404 or not (_typed(body, "not_found_error") or _untyped(body)):
        return None
    found = re.fullmatch(r"model '(.+)' not found", _message(body).strip(), re.IGNORECASE)
    return found.group(1) if found else None


def _typed(body: Any, kind: str) -> bool:
    """Whether ``body`` is an OpenAI-shaped error of type ``kind`` (Ollama's 404 is
    "not_found_error", as a proxy's is)."""
    if not isinstance(body, Mapping):
        return False
    inner = body.get("error")  # the SDK hands on the error object itself
    return (inner if isinstance(inner, Mapping) else body).get("type") == kind


def _untyped(body: Any) -> bool:
    """Whether ``body`` is an error given as text alone: Ollama's own API shape
    (``{"error": "model 'NAME' not found"}``), which the SDK hands on as the text."""
    if isinstance(body, Mapping):
        return isinstance(body.get("error"), str)
    return isinstance(body, str | bytes)


def pull_command(model: str) -> str:
    """The `ollama pull` of ``model``, a name the server or the user gave, quoted for the
    shell when it holds anything but letters, digits and ``._:/-``."""
    plain = re.fullmatch(r"[A-Za-z0-9._:/-]+", model) is not None
    return f"ollama pull {model if plain else shlex.quote(model)}"


def at_ollama_port(url: str) -> bool:
    """Whether ``url`` is at Ollama's port: "model 'NAME' not found", typed or not, is worded
    alike by proxies and other servers, for which `ollama pull` would be no advice."""
    try:
        return urlsplit(url).port == OLLAMA_PORT
    except ValueError:
        return False


def _message(body: Any) -> str:
    """The message of an error body, whole: ``error.message``, a top-level ``message`` or
    ``error`` (Ollama's, LM Studio's), a ``detail`` (a FastAPI server's or proxy's) that is
    text or such an error body itself (a list there is a validation error, which quotes the
    request), or a body that is text; "" for any other."""
    if isinstance(body, bytes):
        return body.decode(errors="replace")
    if isinstance(body, Mapping):
        said = _said(body)
        if isinstance(said, Mapping):  # a proxy relaying the server's error as its detail
            said = _said(said)
        return said if isinstance(said, str) else ""
    return body if isinstance(body, str) else ""


def _said(body: Mapping[str, Any]) -> Any:
    """The first of ``error.message``, ``error``, ``message`` and ``detail`` that is text,
    else ``detail`` whatever it is."""
    inner = body.get("error")
    said = inner.get("message") if isinstance(inner, Mapping) else inner
    for field in ("message", "detail"):
        said = said if isinstance(said, str) else body.get(field)
    return said
