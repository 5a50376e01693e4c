"""The ``forget`` tool: the model forgets stored items when the user asks it to.

Only a user's request should lead to it (the description says so); the
memory's forget config decides how the request is matched
(memory/ops/forget.py). Its result tells the model how many items were
forgotten, never their text (under a privacy policy, of the items it shows the
model only), and a request that matched nothing, or too many, says what the
user can do instead.

Under a privacy policy the tool matches only what the policy shows the model
(``forget(..., shown_only=True)``): an item shown as ``[withheld: CATEGORY]`` is
matched by no request, so the answer to a guess at its text is the answer to a
guess at nothing and confirms nothing. Every answer then says the same, whatever
is stored: the user forgets such an item with their own commands, which match
everything.
"""

from __future__ import annotations

from tiermem.memory.errors import ForgetRequestTooLongError, InvalidInputError
from tiermem.memory.text.counts import items_counted
from tiermem.tools.declare import ToolError, tool
from tiermem.tools.memory_tools import ToolContext

_NEXT = {
    "unmatched": "nothing stored matches it; ask the user for the exact words of what to forget",
    "ambiguous": "it matches more than one thing or is unclear; ask the user which one, "
                 "quoting more of it",
    "failed": "the request could not be judged; nothing was forgotten, try again or ask the "
              "user for the exact words",
}
#: How the answer to a request that forgot items begins.
FORGOTTEN = "Forgotten: "
#: Said under a privacy policy whatever the outcome, so that it tells nothing of what is
#: stored.
WITHHELD = (" Items the privacy policy withholds (shown to you as [withheld: CATEGORY]) are "
            "matched by no request of yours: if the user asked to forget one, tell them they "
            "can forget it themselves with /forget in the chat or `tiermem forget`.")

#: A fact forgotten leaves the conversation message it was learned from (ForgetResult.
#: sources_kept), which a search would still show.
SOURCES_KEPT = (" A conversation message a forgotten fact was learned from is kept: if the user "
                "wants it gone too, pass that message's words to forget.")


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
        result = ctx.memory.forget(request, shown_only=True)
    except ForgetRequestTooLongError as exc:
        # The library's remedy (HierarchicalMemory.erase) is no call a model can make.
        raise ToolError(f"{exc.situation}; nothing was forgotten. Pass the exact text of the "
                        "item as memory shows it, or tell the user that `tiermem forget "
                        "--mode exact` forgets a text this long given whole") from None
    except InvalidInputError as exc:
        raise ToolError(str(exc)) from None
    ctx.forgotten_messages.update(result.forgotten.messages)
    privacy = ctx.memory.privacy
    withheld = WITHHELD if privacy is not None and privacy.recall_enabled else ""
    if result.outcome == "unmatched" and _forgot_before(ctx, request):
        return (f"Already forgotten: an earlier call with this request forgot what it "
                f"matched, and nothing stored matches it now; nothing more was forgotten. "
                f"Do not repeat what was forgotten.{withheld}")
    if result.outcome != "matched":
        return f"Nothing forgotten: {_NEXT[result.outcome]} ({result.detail}).{withheld}"
    done = result.forgotten
    # The user's own lines (the chat's memory changes) count everything; the model is told
    # only of the items it was shown: one forgotten with them that the policy withholds
    # (a fact learned from a shown message) would otherwise be counted to it.
    ctx.changes.append("forgotten: " + items_counted(
        len(done.facts), len(done.passages), len(done.messages)))
    if result.shown is not None:
        done = result.shown
    # Under a policy it is said after every match: said only when a source was kept, it
    # would tell of the sources of items the model is not shown.
    kept = SOURCES_KEPT if withheld or result.sources_kept else ""
    return (f"{FORGOTTEN}{len(done.facts)} fact(s), {len(done.passages)} passage(s), "
            f"{len(done.messages)} message(s). Do not repeat what was forgotten.{kept}"
            f"{withheld}")


def _forgot_before(ctx: ToolContext, request: str) -> bool:
    """Whether the model's window shows this request forgetting items earlier: a small model
    echoes its call, and "ask the user for the exact words" would have it ask the user
    what to forget, after it was forgotten."""
    return any(result.startswith(FORGOTTEN) for result in
               ctx.earlier_results(forget.name, {"request": request}))
