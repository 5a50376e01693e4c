"""What one turn of the agent produced (agent/loop.py), for the caller to show."""

from __future__ import annotations

from dataclasses import dataclass, field

from tiermem.agent.llm import ToolCall, Usage
from tiermem.tools.dispatch import ToolResult


@dataclass
class TurnResult:
    """What one turn produced, for the caller to show."""

    reply: str | None
    #: Every tool call the model made, in order; ``tool_results[i]`` is what ``tool_calls[i]`` did.
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    memory_changes: list[str] = field(default_factory=list)
    steps: int = 0
    usage: Usage = field(default_factory=Usage)
    notice: str | None = None
    compacted: bool = False
    #: Set when the agent stopped the turn before the model ended it ("step_cap",
    #: "unreadable_tool_calls"): what the turn did stands, but it did not finish.
    stopped: str | None = None


def add_notice(result: TurnResult, notice: str) -> None:
    result.notice = f"{result.notice}; {notice}" if result.notice else notice


__all__ = ["TurnResult", "add_notice"]
