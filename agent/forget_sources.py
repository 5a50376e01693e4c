"""What ``/forget`` and ``tiermem forget`` add when a fact forgotten was learned from a
message that stays (``ForgetResult.sources_kept``).

Forgetting a fact leaves the message the user said it in: conversation search still finds
it, and an answer may quote it. To the user that reads as a forget that did not work, so
the reply says so and gives the command that forgets the message too, with its text when
that is one line the user could type and the privacy policy shows it (a text it
withholds is named by its id only: the hint must not show what /recall would not).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tiermem.memory import HierarchicalMemory
from tiermem.memory.errors import InvalidConfigError
from tiermem.memory.ops.erase import ErasureReport
from tiermem.memory.ops.forget_config import MAX_DELETE_COUNT
from tiermem.memory.privacy import PrivacyConfig
from tiermem.memory.privacy.guard import PrivacyGuard
from tiermem.memory.text.counts import copies_counted, items_counted

#: After an exact request matched nothing: how to find the stored wording (``{withheld}``:
#: ``WITHHELD_HINT`` under a privacy policy that withholds things), or match by meaning.
UNMATCHED_HINT = ("/recall TEXT and /archival TEXT show how it was stored, and /core the "
                  "facts{withheld}; to match by meaning, chat with a model (--model) and set "
                  "the forget mode to exact_then_top_k_llm in policy.yaml (it asks the model "
                  "which stored items the request targets)")
#: /core shows a withheld fact as the prompt does, and the searches leave withheld items out:
#: the user forgets one by the text they know.
WITHHELD_HINT = (" (not what the privacy policy withholds: /core shows that as [withheld: "
                 "CATEGORY] and the searches leave it out, so give its text as you know it)")
def past_every_bound(bound: int, detail: str) -> tuple[bool, int | None]:
    """Whether no max_delete_count lets one request forget what it targets (``bound`` is
    the most, or the ``detail`` of the ambiguous outcome counts more than the most), and
    that count when the detail names it."""
    from tiermem.memory.ops.forget_select import targeted_count

    count = targeted_count(detail)
    return bound >= MAX_DELETE_COUNT or (count or 0) > MAX_DELETE_COUNT, count


def count_needed(count: int | None) -> str:
    """The max_delete_count a request over its bound needs, as a hint names it: "7 or more
    (up to 1000)", the most alone ("1000": no count is more), or, unnamed, "at least that
    many (up to 1000)"."""
    if count == MAX_DELETE_COUNT:
        return str(count)
    return (f"{'at least that many' if count is None else f'{count} or more'} "
            f"(up to {MAX_DELETE_COUNT})")


def over_the_bound_hint(bound: int, detail: str) -> str:
    """What the chat's /forget adds to a request that targets more items than ``bound``,
    its max_delete_count (``detail``: the ambiguous outcome's, which names the value)."""
    past, count = past_every_bound(bound, detail)
    if not past:
        # `tiermem forget` cannot open the agent while this chat holds it.
        larger = (f"a larger one (up to {MAX_DELETE_COUNT})" if count is None
                  else f"it to {count_needed(count)}")
        return (f"a request that targets more items than max_delete_count forgets nothing: "
                f"set {larger} under forget: in the policy "
                f"file and start the chat again, or leave the chat and run tiermem forget "
                f"--max-delete-count {count or 'N'} with the text")
    # Every item an exact request targets equals it: no narrower request targets fewer.
    return (f"one request forgets at most {MAX_DELETE_COUNT} items, and this one targets "
            f"more: forget them in parts, with mode: top_k_llm under forget: in the policy "
            f"file and a model (it picks among the closest matches each time)")

#: What a request made again says when an earlier one with its text forgot what it matched
#: (``forgot_before``): told "unmatched", a user would look for how the text was stored.
ALREADY_FORGOTTEN = ("nothing forgotten: already forgotten (request #{done_by} with this text "
                     "forgot what it matched, and nothing stored matches it now{audit})")

#: What erasing what was forgotten before (``--erase-forgotten``) says when it erased
#: nothing: a sweep with nothing left to sweep, not a failure (exit 0, as
#: ``--finish-erasures`` with nothing owed).
NOTHING_TO_ERASE = "nothing to erase: no row forgotten before is still stored"


def erased_before(report: ErasureReport) -> str:
    """What ``erase_forgotten`` did, in words."""
    if not report.facts + report.passages + report.messages:
        return NOTHING_TO_ERASE
    return (f"erased: {items_counted(report.facts, report.passages, report.messages)} "
            f"forgotten before{copies_counted(report.copies)}")


#: The longest message text a hint quotes in its command; a longer one is named by its id.
QUOTED_CHARS = 300


#: The first line of ``sources_kept_lines``, for one message and for more.
LEARNED_FROM = ("the message it was learned from is kept, and conversation search still finds "
                "what it says; to forget it too:",
                "the messages they were learned from are kept, and conversation search still "
                "finds what they say; to forget them too:")
#: The first line naming the user's messages an erasure kept that quote what it erased.
QUOTED_BY_USER = ("your message saying it as well is kept (an erasure takes no message of "
                  "yours it was not asked to); to erase it too:",
                  "your messages saying it as well are kept (an erasure takes no message of "
                  "yours it was not asked to); to erase them too:")


def sources_kept_lines(memory: HierarchicalMemory, ids: Sequence[int],
                       quoted: Callable[[str], str] | None, unquoted: str,
                       where: str, shown: Callable[[list[str]], list[str]] | None = None,
                       header: tuple[str, str] = LEARNED_FROM) -> list[str]:
    """The lines saying that the messages ``ids`` are kept and how to forget them too:
    ``quoted(text)`` is the command that forgets ``text`` (None: quote no text), ``unquoted``
    how to forget one whose text is not quoted, ``where`` where the user sees a message's
    text (``/recall`` in the chat), ``shown`` how the privacy policy shows texts there
    (None: as ``memory`` shows them), and ``header`` the first line for one and for more."""
    hits = memory.recall.get_many(list(ids))
    messages = [hits[i] for i in ids if i in hits]
    if not messages:
        return []
    views = (shown or memory.texts_shown)([m.text for m in messages])
    lines = [header[len(messages) != 1]]
    for message, view in zip(messages, views, strict=True):
        text = message.text
        if view != text:
            lines.append(f"  message #{message.id}, which the privacy policy keeps out of "
                         f"{where}: {unquoted} as you know it")
        elif (quoted is None or not text.isprintable() or len(text) > QUOTED_CHARS
              or text.lstrip().startswith("-")):
            # Not one line to type (a line break of any kind, an escape sequence that would
            # colour or rewrite the terminal's line), or read as an option ("--erase ...").
            lines.append(f"  message #{message.id} ({where} shows it): {unquoted}")
        else:
            lines.append(f"  {quoted(text)}")
        # Forgetting a message takes every fact learned from it: one the user kept must
        # not go unannounced with the message they were told to forget.
        others = len(memory.store.facts.source_messages(
            memory.store.facts.learned_from([message.id])))
        if others:
            lines.append(f"    (it also takes the {others} other fact{'s' * (others != 1)} "
                         f"learned from it)")
    return lines


def policy_view(policy: PrivacyConfig) -> Callable[[list[str]], list[str]]:
    """How ``policy`` shows texts, for a command that opens the memory without it: one a
    model would have to judge is taken as withheld (a hint asks no model)."""
    try:
        guard = PrivacyGuard(policy, None)
    except InvalidConfigError:
        return lambda texts: ["[withheld]"] * len(texts)
    return lambda texts: guard.text_view("", texts)
