"""What the current turn's tool calls and results are shown of when the turn alone
outgrows the context window (agent/context.py ``make_room``).

The current turn is never summarised. When it no longer fits once everything older is,
the arguments of its calls are cut again from the calls as stored (``share_calls``), then
its results share what is left, the largest cut again from their full text
(``share_results``); recall keeps both whole. How each is cut is trimming.py's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tiermem.agent.trimming import shared_calls, shared_results

if TYPE_CHECKING:
    from tiermem.agent.context import ContextWindow


def turn_results(window: ContextWindow,
                 keep_from: int) -> tuple[list[int], list[tuple[str, str]]]:
    """Where the current turn's tool results are, and each as (shown, full text)."""
    indexes = [i for i in range(keep_from, len(window.messages))
               if window.messages[i].get("role") == "tool"
               and isinstance(window.messages[i].get("content"), str)]
    shown = [window.messages[i]["content"] for i in indexes]
    return indexes, [(text, window.full_results.get(window.message_ids[i], text))
                     for i, text in zip(indexes, shown, strict=True)]


def share_results(window: ContextWindow, keep_from: int, excess: int) -> bool:
    """Trim the current turn's tool results to ``excess`` tokens fewer together; False
    when they cannot be."""
    indexes, results = turn_results(window, keep_from)
    room = sum(window.counter.count(shown) for shown, _ in results) - excess
    shown, _ = shared_results(results, room, window.counter)
    if shown is None:
        return False
    messages = list(window.messages)  # a new list: the running token count starts again
    for i, text in zip(indexes, shown, strict=True):
        if text is not messages[i]["content"]:
            # A result shown whole until now keeps its full text: cut again later in
            # the turn, it is cut from that, not from what it shows now.
            window.full_results.setdefault(window.message_ids[i], messages[i]["content"])
            messages[i] = {**messages[i], "content": text}
    window.messages = messages
    return True


def share_calls(window: ContextWindow, keep_from: int, excess: int) -> bool:
    """Trim the arguments of the current turn's calls to ``excess`` tokens fewer
    together, or as far as they go; False when none could be trimmed more."""
    indexes = [i for i in range(keep_from, len(window.messages))
               if window.messages[i].get("tool_calls")]
    calls = [(window.messages[i],
              window.full_calls.get(window.message_ids[i], window.messages[i]))
             for i in indexes]
    room = sum(window.count_message(shown) for shown, _ in calls) - excess
    shown = shared_calls(calls, room, window.count_message, window.counter)
    changed = [(i, new) for i, new, (now, _) in zip(indexes, shown, calls, strict=True)
               if new is not now]
    messages = list(window.messages)  # a new list: the running token count starts again
    for i, new in changed:
        window.full_calls.setdefault(window.message_ids[i], messages[i])
        messages[i] = new
    window.messages = messages if changed else window.messages
    return bool(changed)


__all__ = ["share_calls", "share_results", "turn_results"]
