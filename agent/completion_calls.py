"""What a client makes of a completion's tool calls, and of the messages it sends.

A call whose name carries a namespace some models put before it is named as the tool offered;
calls a model wrote as text in its content, or ended its thinking with, when the server
returned none, become real calls (agent/text_tool_calls.py); and no message goes out with
``content: null``, which some servers refuse.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from tiermem.agent.llm import Completion
from tiermem.agent.response import CUT_SHORT
from tiermem.agent.text_call_objects import ends_in_prose
from tiermem.agent.text_tool_calls import (
    calls_ending_thinking,
    find_text_tool_calls,
    offered_name,
    offered_names,
    offered_parameters,
)

__all__ = ["with_offered_names", "with_text_tool_calls", "without_null_content"]


def with_text_tool_calls(completion: Completion, tools: list[dict[str, Any]],
                         call_id: Callable[[int], str]) -> Completion:
    """The completion with tool calls written in its text made real calls, when the
    server returned none; the text that was a call is no longer content."""
    if completion.tool_calls:
        return completion
    if completion.content:
        found = find_text_tool_calls(completion.content, offered_names(tools),
                                     cut=completion.finish_reason == "length",
                                     call_id=call_id, schemas=offered_parameters(tools))
    elif completion.open_thinking and completion.finish_reason not in CUT_SHORT:
        # The model ended its turn inside its thinking: a call it ended with is its call.
        found = calls_ending_thinking(completion.open_thinking, offered_names(tools),
                                      call_id=call_id, schemas=offered_parameters(tools))
    else:
        return completion
    if not found.calls:  # the content as it is, the text after a lone marker, or none
        return dataclasses.replace(completion, content=found.rest if completion.content
                                   else completion.content)
    after = ends_in_prose(found.rest, (completion.content or "").rstrip())
    return dataclasses.replace(completion, content=found.rest or None,
                               tool_calls=found.calls, text_after_calls=after)


def with_offered_names(completion: Completion, tools: list[dict[str, Any]]) -> Completion:
    """``completion`` with each call's name written without the namespace some models put
    before it (``functions.core_memory_append``) when only that keeps it from naming an
    offered tool; the turn then runs the tool, and records the call under its name."""
    names = frozenset(offered_names(tools))
    renamed = [dataclasses.replace(call, name=offered_name(call.name, names))
               for call in completion.tool_calls]
    if all(new.name == old.name for new, old in zip(renamed, completion.tool_calls, strict=True)):
        return completion
    return dataclasses.replace(completion, tool_calls=renamed)


def without_null_content(message: dict[str, Any]) -> dict[str, Any]:
    if "content" in message and message["content"] is not None:
        return message
    return {**message, "content": ""}
