"""What one turn of the agent produced (agent/loop.py), for the caller to show."""

from __future__ import annotations

from dataclasses import dataclass, field

from tiermem.agent.llm import ToolCall, Usage
from tiermem.agent.tool_use import REPLY_TOOL
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
    """Add ``notice`` to what the user is told of the turn, once: a step that repeats what an
    earlier one did wrong (a call cut at the token limit again) is not told again."""
    if result.notice and notice in result.notice:
        return
    result.notice = f"{result.notice}; {notice}" if result.notice else notice


def note_failed_beside_reply(result: TurnResult, outcomes: list[ToolResult]) -> None:
    """Tell the user when a reply went out in the same step as a call that failed: the
    model wrote both at once ("Done, updated." beside an edit that found nothing), so the
    reply may say the failed call was done. The model is told of the failure as usual."""
    failed = [r.name for r in outcomes if not r.ok and r.name != REPLY_TOOL]
    if failed and any(r.ok and r.name == REPLY_TOOL for r in outcomes):
        add_notice(result, f"{', '.join(dict.fromkeys(failed))} failed in the step that "
                           "sent the reply; what the reply says of it may not have happened")


__all__ = ["TurnResult", "add_notice", "note_failed_beside_reply"]
