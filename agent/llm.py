"""The one interface between the agent loop and any language model.

Every model the loop can drive (an OpenAI-compatible endpoint, the offline
policy, the scripted test double) implements ``LLMClient.complete``. Messages
and tools use the OpenAI chat-completions shapes, because every supported
server speaks them and the tool layer already emits those schemas.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass
class ToolCall:
    """One tool call requested by the model.

    ``arguments`` is the JSON text exactly as the model produced it. It is not
    parsed here because malformed JSON is a normal model output that dispatch
    must report back to the model, not an exception in the client.
    ``from_text`` marks a call the model wrote as text in its content, which
    the client recognised (agent/text_tool_calls.py), rather than one the
    server returned as a tool call. ``cut`` marks one the reply's token limit cut off
    before its arguments ended: it is never run, and the model is told so.
    """

    id: str
    name: str
    arguments: str
    from_text: bool = False
    cut: bool = False

    def as_dict(self) -> dict[str, Any]:
        """This call in the OpenAI ``tool_calls`` item shape."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


def is_whole_json(text: str) -> bool:
    """Whether ``text`` is one complete JSON value: tool-call arguments that were not cut
    off mid-way (a reply that stopped at ``max_tokens`` can end inside them)."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def unique_id_prefix(kind: str) -> str:
    """``kind`` and random hex, to start the ids a client makes up for tool calls.

    An agent's history spans sessions, each with a new client, and is sent back to the
    model whole: ids that only counted up from the start of each session would give two
    different calls (and their results) the same id. Counters follow the random part,
    so that a server which keeps only an id's end (vLLM keeps the last 9 characters for
    Mistral models) still sees them and some of it.
    """
    return f"{kind}_{secrets.token_hex(6)}"


@dataclass
class Usage:
    """Token counts as reported by the provider (zeros when it reports none)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
        )


@dataclass
class Completion:
    """One model response: text, tool calls (several means parallel calls), or both."""

    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    finish_reason: str | None = None
    #: Whether the model thought before (or instead of) replying: reasoning the server
    #: sent apart from the content, or a <think> block taken out of it. A reply cut at
    #: max_tokens with no content and this set ran out of budget while thinking.
    thought: bool = False
    #: The text of a ``<think>`` block the content began and never closed, which is not
    #: in ``content``: in a reply that was not cut short, a tool call it ends with is the
    #: model's call (agent/text_tool_calls.py, ``calls_ending_thinking``).
    open_thinking: str | None = None
    #: Whether ``content`` is text the model wrote after the calls it wrote as text: in a
    #: reply cut at max_tokens, that text is where the cut fell.
    text_after_calls: bool = False

    def as_message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation before the tool results.

        ``tool_calls`` is omitted when empty because some servers reject an
        empty list; content is ``""`` rather than null, which some refuse.
        """
        message: dict[str, Any] = {"role": "assistant", "content": self.content or ""}
        if self.tool_calls:
            message["tool_calls"] = [call.as_dict() for call in self.tool_calls]
        return message


@runtime_checkable
class LLMClient(Protocol):
    """What the agent loop needs from a model.

    Two attributes are optional, read by the agent when present:
    ``max_tokens``, the reply budget it keeps free in the window (0 when
    absent), and ``encoding``, the tokenizer encoding its prompts are counted
    with (the memory's when absent).
    """

    #: Shown to the user, e.g. ``"openai:gpt-4o-mini @ http://127.0.0.1:8080/v1"``.
    name: str
    #: The model's context window in tokens; the context builder keeps prompts under it.
    context_window: int

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        """Send the conversation and tool schemas; return the model's next step.

        Raises ``ProviderError`` when the model cannot be reached or refuses the
        request.
        """
        ...
