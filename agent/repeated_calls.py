"""A note for a model that repeats the exact same tool call within one turn (agent/loop.py).

A small model stuck in a loop calls the same tool with the same arguments again and
again, reading the same result each time, until the turn's step cap. The repeated call
still runs and its result still goes back whole, with a short note after it that says
so and what to do instead. Only a call identical to an earlier one of the same turn
gets it: same tool, same arguments (as JSON objects, so spacing and key order do not
matter), and nothing changed in memory since (a search again after an insert asks
anew); a changed argument is a new call. ``send_message`` gets none: it ends the turn; nor
does a call the token limit cut, which never ran, and whose arguments, a note of how much
was cut, are alike for calls that were not.

One reply that holds the same call twice (a small model writing ``<tool_call>`` twice
over) means it once: it runs once (``once_each``).
"""

from __future__ import annotations

import dataclasses
import json

from tiermem.agent.llm import Completion, ToolCall
from tiermem.agent.tool_use import REPLY_TOOL
from tiermem.tools.dispatch import MAX_ARGUMENT_BYTES, ToolResult

SAME_RESULT = ("[Note: you already made this exact call in this turn; its result is unchanged. "
               "Answer the user with send_message, or try something else.]")
NEW_RESULT = ("[Note: you already made this exact call in this turn. Answer the user with "
              "send_message, or try something else.]")


#: What goes between a result and its note.
NOTE_SEPARATOR = "\n\n"


def split_note(content: str) -> tuple[str, str]:
    """``content`` as the result and the note after it (with its separator; "" for none),
    so that a result trimmed for the window is trimmed as the tool gave it (a page of
    hits, in JSON) and keeps its note (agent/trimming.py)."""
    for note in (SAME_RESULT, NEW_RESULT):
        if content.endswith(NOTE_SEPARATOR + note):
            return content[: -len(NOTE_SEPARATOR + note)], NOTE_SEPARATOR + note
    return content, ""


class RepeatedCalls:
    """The calls one turn has made, and the result each last gave.

    A call is a repeat only when memory has not changed since the same call last ran:
    a search again after an insert (or anything else the turn's tools changed) is a new
    question, and gets no note. ``changes`` counts what the turn changed so far (the
    length of ``ToolContext.changes``), before the call ran and after.
    """

    def __init__(self) -> None:
        self._results: dict[tuple[str, str], tuple[str, int]] = {}

    def noted(self, call: ToolCall, outcome: ToolResult,
              changes: tuple[int, int] = (0, 0)) -> ToolResult:
        """``outcome`` with the note added to its content when ``call`` repeats one made
        earlier in the turn, with nothing changed in memory since; "unchanged" compares
        the result with the one that call last gave."""
        if call.name == REPLY_TOOL or call.cut:
            return outcome
        before, after = changes
        key = (call.name, _same_arguments(call.arguments))
        earlier = self._results.get(key)
        self._results[key] = (outcome.content, after)
        if earlier is None or earlier[1] != before:
            return outcome
        note = SAME_RESULT if earlier[0] == outcome.content else NEW_RESULT
        outcome.content = f"{outcome.content}{NOTE_SEPARATOR}{note}"
        return outcome


def once_each(completion: Completion) -> Completion:
    """``completion`` without a call identical to one before it in the same reply."""
    kept: dict[tuple[str, str], ToolCall] = {}
    for call in completion.tool_calls:
        kept.setdefault((call.name, _same_arguments(call.arguments)), call)
    if len(kept) == len(completion.tool_calls):
        return completion
    return dataclasses.replace(completion, tool_calls=list(kept.values()))


def _same_arguments(arguments: str) -> str:
    """The arguments in one spelling: a JSON object with its keys sorted, else as sent."""
    if len(arguments) > MAX_ARGUMENT_BYTES:  # refused unread by dispatch; not read here
        return arguments
    try:
        parsed = json.loads(arguments)
    except (ValueError, RecursionError):
        return arguments.strip()
    if not isinstance(parsed, dict):
        return arguments.strip()
    try:
        return json.dumps(parsed, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return arguments.strip()


__all__ = ["NEW_RESULT", "SAME_RESULT", "RepeatedCalls", "once_each", "split_note"]
