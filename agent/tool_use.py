"""How many tool calls a turn made, and the warning for a run that made none.

A model that never calls a memory tool never stores or searches anything: its
answers come from the prompt alone, and a scenario or evaluation run with it
measures nothing about memory. Runs count the calls per turn and say so loudly.
``send_message`` is how a reply is sent, not a use of memory, so it is counted
among the tool calls but not among the memory tool calls; nor is a call of a tool
that does not exist (a name the model made up), which reached no memory.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from tiermem.tools.dispatch import ToolResult
from tiermem.tools.memory_tools import memory_toolbox

REPLY_TOOL = "send_message"
NO_TOOL_CALLS = ("no tool calls: the model never called a memory tool; "
                 "run tiermem doctor --base-url URL --model NAME")


def tool_calls(results: Iterable[ToolResult]) -> tuple[int, int]:
    """(all tool calls, memory tool calls) among one turn's tool results."""
    names = [result.name for result in results]
    memory_tools = _memory_tool_names()
    return len(names), sum(name in memory_tools for name in names)


@functools.cache
def _memory_tool_names() -> frozenset[str]:
    return frozenset(memory_toolbox().names) - {REPLY_TOOL}


def no_tool_calls_warning(memory_calls: int, turns: int) -> str | None:
    """The warning for a run of ``turns`` turns with ``memory_calls`` memory tool calls."""
    return NO_TOOL_CALLS if turns and not memory_calls else None
