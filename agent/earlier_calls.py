"""The results the model's earlier tool calls got, as its window shows them.

A small model echoes its earlier calls in a later step or turn; a tool asked for the same
work again tells it the work is done, with the result the first call got as the evidence
(tools/core_edits.py, tools/forget_tool.py). The window is the evidence because it is what
the model copies from: it holds the turn so far and the earlier turns it still carries,
read back from recall when the agent starts again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from tiermem.tools.dispatch import ERROR_PREFIX, MAX_ARGUMENT_BYTES


def results_of(messages: Sequence[dict[str, Any]], name: str,
               arguments: dict[str, Any]) -> list[str]:
    """The results (oldest first) of the calls of tool ``name`` in ``messages`` made with
    each of ``arguments`` as given (other arguments, such as ``request_heartbeat``, aside)
    and that did not fail."""
    wanted: set[str] = set()
    results = []
    for message in messages:
        if message.get("role") == "assistant":
            wanted.update(call["id"] for call in message.get("tool_calls") or ()
                          if _made_with(call, name, arguments))
        elif message.get("role") == "tool" and message.get("tool_call_id") in wanted:
            content = str(message.get("content") or "")
            if not content.startswith(ERROR_PREFIX):
                results.append(content)
    return results


def _made_with(call: dict[str, Any], name: str, arguments: dict[str, Any]) -> bool:
    function = call.get("function") or {}
    if function.get("name") != name or not isinstance(function.get("arguments"), str):
        return False
    if len(function["arguments"]) > MAX_ARGUMENT_BYTES:  # refused unread by dispatch
        return False
    try:
        given = json.loads(function["arguments"])
    except (ValueError, RecursionError):
        return False
    return isinstance(given, dict) and all(
        key in given and given[key] == value for key, value in arguments.items())


def earlier_results(window: Callable[[], Sequence[dict[str, Any]]]
                    ) -> Callable[[str, dict[str, Any]], list[str]]:
    """``results_of`` over what ``window`` holds when asked (it grows as the turn goes)."""
    return lambda name, arguments: results_of(window(), name, arguments)
