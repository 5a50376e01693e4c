"""Whether the agent's own prompt fits the server's context window, for ``tiermem doctor``.

Every prompt the chat sends starts with the same instructions and the schemas of
all its tools, and keeps the reply budget (``max_tokens``) free in the window
(agent/context.py). A server started with a small window (``llama-server -c
2048``, an Ollama model at its default ``num_ctx``) answers the doctor's short
probes well, yet every turn of the chat would overflow before it began. So the
doctor counts that fixed part as the chat counts it, in the encoding the chat
would use (``TIERMEM_ENCODING`` when set), and compares it with the window the chat
would use: ``TIERMEM_CONTEXT_WINDOW`` when set, else the one the server reported.
A configured window larger than the server's is a mismatch of its own
(``window_mismatch``): the chat would build prompts the server refuses, or cuts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tiermem.agent.config import (
    ENV_CONTEXT_WINDOW,
    ENV_MAX_TOKENS,
    default_max_tokens,
    resolve_encoding,
)
from tiermem.agent.context import ContextWindow
from tiermem.memory.text.tokenizer import TokenCounter
from tiermem.tools.memory_tools import memory_toolbox

#: Tokens beyond the fixed prompt for core's facts, a few messages and a tool result: with
#: less, a conversation is summarised away after a turn or two.
WORKING_ROOM = 1024
#: The message a first turn is measured with: short, as a greeting is.
FIRST_MESSAGE = "Hello there, I'm Sam."
#: The smallest reply budget worth suggesting: a tool call with a fact, or a short answer.
SMALLEST_REPLY = 256


@dataclass(frozen=True)
class WindowFit:
    """A server's window against what the agent's prompts need of it."""

    model: str
    window: int
    #: The instructions and tool schemas, in every prompt.
    fixed: int
    #: The reply budget kept free in the window.
    reply: int
    #: The first prompt of an empty memory with a short message, as the chat builds it
    #: (empty core, the statistics line, a memory pressure alert if it is near the limit).
    first_turn: int = 0
    #: Whether ``reply`` was configured (``TIERMEM_MAX_TOKENS``) rather than the default.
    reply_configured: bool = False
    #: Whether ``window`` was configured (``TIERMEM_CONTEXT_WINDOW``) rather than reported
    #: by the server.
    window_configured: bool = False
    #: The window the server reported, when ``window`` is the user's and it said one.
    server_window: int | None = None

    @property
    def left(self) -> int:
        """Tokens left for core, the summary and the conversation."""
        return self.window - self.reply - self.fixed

    @property
    def status(self) -> Literal["ok", "warn", "fail"]:
        if self.first_turn > self.window - max(self.reply, 1):  # ContextWindow.fits
            return "fail"
        return "warn" if self.left < WORKING_ROOM else "ok"

    def row(self) -> tuple[Literal["ok", "warn", "fail"], str, str]:
        """(status, result, detail) of the doctor's row."""
        return (self.status, f"{max(self.left, 0)} tokens left",
                f"of {self.window}: {self.fixed} for the instructions and tool schemas, "
                f"{self.reply} kept for the reply")

    def advice(self) -> list[str]:
        if self.status == "ok":
            return []
        bigger = self.window_needed()
        whose = (f"the context window {ENV_CONTEXT_WINDOW} sets" if self.window_configured
                 else "the server's context window")
        if self.status == "fail":
            said = (f"{whose} ({self.window} tokens) cannot hold even an "
                    f"empty conversation: the agent's instructions and tool schemas take "
                    f"{self.fixed} tokens and {self.reply} are kept for the reply, so every "
                    f"turn would fail")
        else:
            said = (f"{whose} ({self.window} tokens) leaves {self.left} "
                    f"tokens for core and the conversation once the agent's instructions and "
                    f"tool schemas ({self.fixed}) and the reply budget ({self.reply}) are "
                    f"counted: older turns will be summarised away after a turn or two")
        if self.window_configured and (self.server_window or 0) >= bigger:
            said += (f". Set {ENV_CONTEXT_WINDOW} to at least {bigger}, or unset it: the "
                     f"server runs with {self.server_window}")
        else:
            said += (f". Restart the server with a window of at least {bigger} tokens "
                     f"(llama-server -c {bigger}, Ollama num_ctx {bigger} or "
                     f"OLLAMA_CONTEXT_LENGTH={bigger}, vLLM --max-model-len {bigger}, "
                     f"llama-cpp-python --n_ctx {bigger})")
            if self.window_configured:
                said += f" and set {ENV_CONTEXT_WINDOW}={bigger}"
        lower = self.window - self.fixed - WORKING_ROOM
        if SMALLEST_REPLY <= lower < self.reply:
            said += (f", or lower the reply budget to {lower} (chat --max-tokens {lower}, or "
                     f"{ENV_MAX_TOKENS}={lower} for both chat and doctor)")
        return [said]

    def window_needed(self) -> int:
        """The smallest power of two that leaves ``WORKING_ROOM`` with its reply budget."""
        size = 1024
        while size - self._reply_for(size) - self.fixed < WORKING_ROOM:
            size *= 2
        return size

    def _reply_for(self, window: int) -> int:
        return self.reply if self.reply_configured else default_max_tokens(self.model, window)


def window_fit(model: str, window: int, max_tokens: int | None = None, *,
               encoding: str | None = None, configured: bool = False) -> WindowFit:
    """What the chat would need of ``window`` for ``model``: its fixed prompt counted as
    the chat counts it (in ``encoding``, default the model's), and ``max_tokens``
    (default: the chat's default for that window). ``configured``: the window is the
    user's (``TIERMEM_CONTEXT_WINDOW``), not the server's."""
    from tiermem.memory import HashingEmbedder, HierarchicalMemory

    reply = default_max_tokens(model, window) if max_tokens is None else max_tokens
    context = ContextWindow(window=window,
                            counter=TokenCounter(resolve_encoding(encoding, model)),
                            reserve=reply,
                            messages=[{"role": "user", "content": FIRST_MESSAGE}])
    schemas = memory_toolbox().schemas()
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as empty:
        _, first_turn = context.build(empty, schemas)
    return WindowFit(model, window, context.fixed_tokens(schemas), reply,
                     first_turn=first_turn, reply_configured=max_tokens is not None,
                     window_configured=configured)


def window_mismatch(configured: WindowFit, server: int, source: str,
                    encoding: str | None = None) -> tuple[Literal["warn", "fail"], str] | None:
    """When the window the user set is larger than the ``server``'s (reported by
    ``source``): "fail" if even a first turn, with the chat's reply budget, would not fit
    the server's, else "warn"; and the advice. None when the server's window is as large."""
    if configured.window <= server:
        return None
    at_server = window_fit(configured.model, server, configured.reply, encoding=encoding)
    status: Literal["warn", "fail"] = "fail" if at_server.status == "fail" else "warn"
    said = (f"{ENV_CONTEXT_WINDOW}={configured.window} is larger than the window the server "
            f"runs with ({server} tokens, from {source}): the chat would send prompts of up "
            f"to {configured.window - configured.reply} tokens, which the server refuses "
            f"(llama.cpp, vLLM) or cuts from the start without saying so (Ollama), losing "
            f"the agent's instructions")
    said += (f"; even a first turn ({at_server.first_turn} tokens and {at_server.reply} for "
             f"the reply) does not fit the server's window" if status == "fail" else "")
    said += (f". Set {ENV_CONTEXT_WINDOW}={server} (or unset it: the chat reads the "
             f"server's window), or restart the server with a window of {configured.window}")
    return status, said
