"""The doctor's advice when its plain chat request failed: the URL, the model, the key, a
proxy's page, a busy or slow server, or one that gave no answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tiermem.agent.command_hints import hint_for
from tiermem.agent.config import ENV_API_KEY, ENV_TIMEOUT, default_timeout
from tiermem.agent.doctor_probes import BUDGET_SECONDS, NOT_A_COMPLETION
from tiermem.agent.server_errors import PLACE_HINT
from tiermem.agent.server_setup import at_ollama_port, pull_command

if TYPE_CHECKING:
    from tiermem.agent.doctor_checks import Findings

__all__ = ["plain_chat_advice"]


def plain_chat_advice(facts: Findings, base_url: str, model: str | None) -> list[str]:
    """What to do about a plain chat request that failed, as ``facts`` found it."""
    error = facts.plain_chat_error
    if NOT_A_COMPLETION in error or (facts.plain_chat_status == 404
                                     and not facts.model_missing()):
        return [f"{base_url}/chat/completions answered, but not as an OpenAI-compatible "
                f"server: check that --base-url is the server's API root (it ends in /v1), "
                f"and the server's log"]
    if facts.model_missing():
        listed = (f" ({', '.join(facts.models[:3])})" if facts.models
                  else f" ({base_url}/models lists them)")
        # `ollama pull` only for Ollama (its port, or its API answering elsewhere): vLLM, LM
        # Studio or a proxy has no such command.
        fetch = (f"pull it ({pull_command(model or '')}) or load it in the server"
                 if at_ollama_port(base_url) or facts.ollama_api else "load it in the server")
        return [f"the server has no model named {model!r}: {fetch}, or pass --model with a "
                f"model the server has{listed}"]
    if facts.plain_chat_status in (401, 403, 407) and "a web page" in error:
        # A proxy's or firewall's own page, not the API's refusal of the key.
        return [f"a proxy or firewall in front of the server refused the request with its own "
                f"web page (HTTP {facts.plain_chat_status}): check its access rules (addresses "
                f"allowed, a login it asks) or pass --base-url of the server itself, then run "
                f"the doctor again"]
    if facts.key_refused == "place":
        return [f"the server refused requests from this country or region (HTTP "
                f"{facts.plain_chat_status}): {hint_for(PLACE_HINT, 'doctor')}"]
    if facts.key_refused == "key":
        return [f"the server rejected the API key (HTTP {facts.plain_chat_status}): set "
                f"{ENV_API_KEY} to a key it accepts (the doctor and the chat both send it), then "
                f"run the doctor again"]
    if facts.key_refused == "model":
        others = [name for name in facts.models if name != model]
        listed = f" ({', '.join(others[:3])})" if others else ""
        return [f"the API key may not use model {model!r} (HTTP {facts.plain_chat_status}): "
                f"pass --model with a model it may use{listed}, or set {ENV_API_KEY} to a key "
                f"allowed this model"]
    if facts.plain_chat_status == 503:
        # llama.cpp's "Loading model" and Ollama's full queue are server faults, advised
        # before: these words name no server, so no server's settings are named.
        return ["the server is busy or overloaded (HTTP 503): run the doctor again shortly, "
                "once fewer requests run on it; its log, or that of a proxy in front of it, "
                "says why otherwise"]
    status = facts.plain_chat_status
    if status in (504, 524):
        return [f"a proxy or gateway in front of the model server stopped waiting for its "
                f"answer (HTTP {status}): if it is yours, raise its read timeout (nginx "
                f"proxy_read_timeout, 60 s by default); or run the doctor again once the model "
                f"is loaded"]
    if status in (502, 520, 521, 522, 523):
        return [f"a proxy or gateway in front of the model server got no answer from it (HTTP "
                f"{status}): check that the model server is running, and its log and the "
                f"proxy's, then run the doctor again"]
    if status is not None and status >= 500:
        return [f"the server failed a short chat request (HTTP {status}): its log says why "
                f"(out of memory running the model, say); run the doctor again once that is "
                f"fixed"]
    if "within the timeout" in error:
        return [f"the server did not answer a short chat request within "
                f"{facts.probe_timeout:g} s: a model still loading or a slow machine. Run the "
                f"doctor again with a larger --timeout (the probes stop starting after "
                f"{BUDGET_SECONDS:g} s); the chat waits {default_timeout(base_url):g} s for "
                f"each answer unless --timeout or {ENV_TIMEOUT} says otherwise"]
    if error.startswith("no answer ("):
        return ["the server listed its models but gave a short chat request no answer: it may "
                "have crashed loading or running the model (out of memory, say); its log says "
                "why. Run the doctor again once that is fixed"]
    return []
