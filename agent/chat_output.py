"""What the chat shows of a turn: rich text for people, one JSON object for scripts.

``show_turn`` prints tool calls and memory changes dimmed, then the reply.
``turn_record`` is the same turn as data, for ``tiermem chat --json``::

    {"message": "I like tea", "reply": "Noted.", "notice": null, "error": null,
     "tool_calls": [{"name": "core_memory_append", "arguments": {...}, "ok": true,
                     "result": "core + User likes tea ..."}],
     "memory_changes": ["core + User likes tea"],
     "usage": {"prompt_tokens": 0, "completion_tokens": 0}}

A failed turn has ``"error": {"kind": ..., "message": ..., "hint": ...}`` and
no reply; a slash command is ``{"command": "/core", "output": TEXT, "error": ...}``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rich.console import Console

from tiermem.agent.chat_help import indented_line, print_laid_out, reply_text
from tiermem.agent.config import ENV_CONTEXT_WINDOW
from tiermem.agent.errors import ProviderError
from tiermem.agent.terminal import escape
from tiermem.agent.turn_result import TurnResult
from tiermem.memory.text.counts import counted

UNANSWERED = "your message is kept in recall as unanswered"
_HINTS = {
    "timeout": "send it again when the model answers in time",
    "connection": "send it again when the model is reachable",
    "server": "send it again when the model's server has recovered",
    "rate_limit": "send it again once the rate limit allows",
    "auth": "fix the credentials the error names, then send it again",
    "bad_request": "the model refused this request; change what the error names before "
                   "sending it again",
    "bad_response": "the model's answer could not be read; send it again, or use a model "
                    "with dependable tool calling",
}


def provider_hint(exc: ProviderError, window_in_use: int | None = None) -> str:
    """What to do after a model failure, by kind (resending helps only some kinds), or the
    error's own hint when it has one. ``window_in_use``: the context window the prompt was
    fitted to."""
    if exc.hint:
        return f"{UNANSWERED}; {exc.hint}"
    if exc.kind == "context_exceeded":
        return f"{UNANSWERED}; {_window_hint(exc.context_window, window_in_use)}"
    return f"{UNANSWERED}; {_HINTS.get(exc.kind, 'send it again later')}"


def _window_hint(window: int | None, window_in_use: int | None = None) -> str:
    if window is not None and window_in_use is not None and window_in_use <= window:
        # The window is right: the server counted the prompt as longer than tiermem did.
        lower = max(1, window_in_use * 85 // 100)
        return (f"tiermem already fits the prompt and reply to {window_in_use} tokens, but "
                f"the server counts text in its model's own tokenizer, which can come to "
                f"more; start the chat with a smaller --context-window (e.g. {lower}) or "
                f"a lower --max-tokens")
    smaller = ("the server's context window is smaller than the one tiermem fitted the prompt "
               f"to ({window_in_use} tokens)" if window_in_use is not None else
               "the server's context window is smaller than tiermem assumed")
    if window is not None:
        return (f"{smaller}; start the chat with --context-window {window} (or set "
                f"{ENV_CONTEXT_WINDOW}={window}), the size the error names")
    # Nothing in the error says the size, so name where each server sets it.
    return (f"{smaller}, and the error names no size; start the chat with --context-window N "
            f"(or set {ENV_CONTEXT_WINDOW}) to the window the server was started with "
            f"(llama-server -c/--ctx-size, shown as n_ctx in its /props; llama-cpp-python "
            f"--n_ctx; Ollama num_ctx), or else the context length on the model's card")


def error_kind(exc: BaseException) -> str:
    """A short stable name for a failure: the provider's kind, else the exception's class
    in snake case (``ContextOverflowError`` -> ``context_overflow``)."""
    if isinstance(exc, ProviderError):
        return exc.kind
    name = type(exc).__name__.removesuffix("Error") or type(exc).__name__
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def show_turn(console: Console, result: TurnResult) -> None:
    """Tool calls and memory changes dimmed and compact, then the reply.

    A memory change the reply already states (the offline policy lists what it
    stored) is not printed a second time.
    """
    def line(markup: str) -> None:
        # Wrapped at a narrow width under its text, not back to column 0 (chat_help).
        print_laid_out(console, indented_line(console, markup))

    for outcome in result.tool_results:
        name = escape(outcome.name) + (" (parsed from text)" if outcome.from_text else "")
        if not outcome.ok:
            line(f"[yellow]  ↳ {name}: {escape(outcome.content[:160])}[/yellow]")
        elif outcome.name.endswith("search") and isinstance(outcome.value, dict):
            found = outcome.value
            total = found["total"]
            line(f"[dim]  ↳ {name}({escape(found['query'][:60])})"
                 f": {counted(total, 'match', 'matches')}[/dim]")
        elif outcome.from_text:
            line(f"[dim]  ↳ {name}: ok[/dim]")
    reply = result.reply or ""
    for change in result.memory_changes:
        if change not in reply:
            line(f"[dim]  · {escape(change[:160])}[/dim]")
    if reply:
        print_laid_out(console, reply_text(console, escape(reply)))
    if result.notice:
        print_laid_out(console, reply_text(console, f"[yellow]{escape(result.notice)}[/yellow]"))
    if result.usage.total_tokens:
        console.print(f"[dim]  tokens: {result.usage.prompt_tokens} in, "
                      f"{result.usage.completion_tokens} out[/dim]")


def turn_record(message: str, result: TurnResult | None,
                error: dict[str, str] | None = None) -> dict[str, Any]:
    """One turn as JSON-ready data; ``result`` is None when the turn failed."""
    calls = []
    if result is not None:
        for call, outcome in zip(result.tool_calls, result.tool_results, strict=True):
            calls.append({"name": call.name, "arguments": _json_or_text(call.arguments),
                          "ok": outcome.ok, "result": _json_or_text(outcome.content),
                          "parsed_from_text": call.from_text})
    return {
        "message": message,
        "reply": result.reply if result else None,
        "tool_calls": calls,
        "memory_changes": list(result.memory_changes) if result else [],
        "notice": result.notice if result else None,
        "usage": {"prompt_tokens": result.usage.prompt_tokens if result else 0,
                  "completion_tokens": result.usage.completion_tokens if result else 0},
        "error": error,
    }


def _json_or_text(text: str) -> Any:
    """Tool arguments and results as data when they are JSON, else as the text itself."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text
