"""A language model that plays back a script: the test double for the agent loop.

Tests state exactly what the "model" does at each step, then check what it was
shown::

    with ScriptedModel([call("core_memory_append", text="likes tea"), reply("noted")]) as model:
        agent.step("I like tea", model=model)
    assert "likes tea" in json.dumps(model.calls[1].messages)

A step is a ``Completion``, an exception instance (raised, to simulate a
provider failure), or a callable ``(messages, tools) -> Completion`` for replies
that depend on the prompt. Running past the end of the script, or leaving steps
unused, is an error: a test that silently made fewer or more model calls than it
meant to is a wrong test.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tiermem.agent.errors import ScriptExhaustedError, ScriptUnusedError
from tiermem.agent.llm import Completion, ToolCall
from tiermem.memory.text.tokenizer import DEFAULT_ENCODING

StepFunction = Callable[[list[dict[str, Any]], list[dict[str, Any]]], Completion]
Step = Completion | BaseException | StepFunction

# Process-wide so that ids stay unique when several helpers feed one conversation.
_call_ids = itertools.count(1)


def _next_id() -> str:
    return f"call_{next(_call_ids)}"


def reply(text: str) -> Completion:
    """A step that answers with plain text and no tool calls."""
    return Completion(content=text, model="scripted", finish_reason="stop")


def raw_call(name: str, arguments_text: str) -> Completion:
    """A step with one tool call carrying ``arguments_text`` verbatim, even if it is bad JSON."""
    return Completion(
        content=None,
        tool_calls=[ToolCall(id=_next_id(), name=name, arguments=arguments_text)],
        model="scripted",
        finish_reason="tool_calls",
    )


def call(name: str, /, **arguments: Any) -> Completion:
    """A step with one tool call, its keyword arguments JSON-encoded."""
    return raw_call(name, json.dumps(arguments))


def calls(*requests: tuple[str, dict[str, Any]]) -> Completion:
    """A step with several tool calls at once (parallel calls), each ``(name, arguments)``."""
    return Completion(
        content=None,
        tool_calls=[
            ToolCall(id=_next_id(), name=name, arguments=json.dumps(arguments))
            for name, arguments in requests
        ],
        model="scripted",
        finish_reason="tool_calls",
    )


@dataclass
class ScriptedCall:
    """What the model was given on one call (deep copies, safe from later mutation)."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]

    @property
    def tool_names(self) -> list[str]:
        return [tool.get("function", {}).get("name", "") for tool in self.tools]


def describe_step(step: Step) -> str:
    """A short human-readable form of a step, for error messages."""
    if isinstance(step, Completion):
        parts = [f"{c.name}({_clip(c.arguments)})" for c in step.tool_calls]
        if step.content is not None:
            parts.insert(0, f"reply({_clip(step.content)!r})")
        return " + ".join(parts) or "empty completion"
    if isinstance(step, BaseException):
        return f"raise {step!r}"
    return f"function {getattr(step, '__name__', repr(step))}"


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ScriptedModel:
    """``LLMClient`` that returns (or raises) its steps in order and records every call."""

    def __init__(
        self,
        steps: Iterable[Step] = (),
        *,
        context_window: int = 8192,
        name: str = "scripted",
        max_tokens: int = 0,
        encoding: str = DEFAULT_ENCODING,
    ) -> None:
        self.name = name
        self.context_window = context_window
        #: The reply budget the agent keeps free; 0 because scripted replies need no room.
        self.max_tokens = max_tokens
        self.encoding = encoding
        self.calls: list[ScriptedCall] = []
        self._steps: list[Step] = list(steps)
        self._position = 0

    def add(self, *steps: Step) -> None:
        """Append steps to the end of the script."""
        self._steps.extend(steps)

    @property
    def remaining(self) -> list[Step]:
        """The steps not consumed yet."""
        return self._steps[self._position :]

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        self.calls.append(ScriptedCall(copy.deepcopy(messages), copy.deepcopy(tools)))
        if self._position >= len(self._steps):
            total = len(self._steps)
            raise ScriptExhaustedError(
                f"the scripted model was called {len(self.calls)} times but its script has "
                f"only {total} step{'' if total == 1 else 's'}; the code under test made more "
                f"model calls than the test expected (add steps, or check for a loop)"
            )
        step = self._steps[self._position]
        self._position += 1
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, Completion):
            return step
        # The function gets its own copies so it cannot alter what was recorded.
        result = step(copy.deepcopy(messages), copy.deepcopy(tools))
        if not isinstance(result, Completion):
            raise TypeError(
                f"scripted step {self._position} ({describe_step(step)}) returned "
                f"{type(result).__name__}, not a Completion"
            )
        return result

    def assert_finished(self) -> None:
        """Raise ``ScriptUnusedError`` if any step was never consumed."""
        unused = self.remaining
        if unused:
            listing = "; ".join(
                f"#{self._position + i + 1}: {describe_step(step)}" for i, step in enumerate(unused)
            )
            raise ScriptUnusedError(
                f"{len(unused)} of {len(self._steps)} scripted steps were never used "
                f"(the model was called {len(self.calls)} times): {listing}"
            )

    def __enter__(self) -> ScriptedModel:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        # On an exception the unused steps are a symptom; let the real error surface.
        if exc_type is None:
            self.assert_finished()

    def __repr__(self) -> str:
        return (
            f"ScriptedModel({len(self._steps)} steps, {self._position} used, "
            f"{len(self.calls)} calls)"
        )


__all__ = [
    "ScriptedCall",
    "ScriptedModel",
    "Step",
    "call",
    "calls",
    "describe_step",
    "raw_call",
    "reply",
]
