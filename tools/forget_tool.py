"""The ``forget`` tool: the model forgets stored items when the user asks it to.

Only a user's request should lead to it (the description says so); the
memory's forget config decides how the request is matched
(memory/ops/forget.py). Its result tells the model how many items were
forgotten, never their text, and a request that matched nothing, or too many,
says what the user can do instead.
"""

from __future__ import annotations

from tiermem.memory.errors import ForgetRequestTooLongError, InvalidInputError
from tiermem.tools.declare import ToolError, tool
from tiermem.tools.memory_tools import ToolContext

_NEXT = {
    "unmatched": "nothing stored matches it; ask the user for the exact words of what to forget",
    "ambiguous": "it matches more than one thing or is unclear; ask the user which one, "
                 "quoting more of it",
    "failed": "the request could not be judged; nothing was forgotten, try again or ask the "
              "user for the exact words",
}


@tool(heartbeat=True)
def forget(ctx: ToolContext, request: str) -> str:
    """Forget stored facts, passages or messages, only when the user asks you to forget them.

    The items are removed from core, archival and conversation search for good. Pass the
    user's request, or better the exact text of the item as memory shows it.

    Args:
        request: What the user asked to forget, e.g. "my card number is 4111 1111".
    """
    if not request.strip():
        raise ToolError("request is empty; say what the user asked to forget")
    try:
        result = ctx.memory.forget(request)
    except ForgetRequestTooLongError as exc:
        # The library's remedy (HierarchicalMemory.erase) is no call a model can make.
        raise ToolError(f"{exc.situation}; nothing was forgotten. Pass the exact text of the "
                        "item as memory shows it, or tell the user that `tiermem forget "
                        "--mode exact` forgets a text this long given whole") from None
    except InvalidInputError as exc:
        raise ToolError(str(exc)) from None
    ctx.forgotten_messages.update(result.forgotten.messages)
    if result.outcome != "matched":
        return f"Nothing forgotten: {_NEXT[result.outcome]} ({result.detail})."
    done = result.forgotten
    ctx.changes.append(f"forgotten: {len(done.facts)} fact(s), {len(done.passages)} "
                       f"passage(s), {len(done.messages)} message(s)")
    return (f"Forgotten: {len(done.facts)} fact(s), {len(done.passages)} passage(s), "
            f"{len(done.messages)} message(s). Do not repeat what was forgotten.")
