"""What the model is shown of long tool calls and results: trimmed to fit, stored in full.

A legal call can carry tens of thousands of characters: a document filed with
``archival_memory_insert``, a long ``send_message``. Recall stores the call in
full; the context window gets a copy whose long strings are cut to a share of
the prompt budget, each with a marker saying how much was left out. Otherwise
one such call fills a small window, and since the current turn can never be
summarised away, the turn would end with ``ContextOverflowError``. The model
wrote that text itself; the start of it is enough to carry on.

A tool result is cut the same way, to a larger share (``RESULT_SHARE``): a page of
search hits can hold 15,000 characters, more than a 4,096-token window, and the
turn that asked for it could only fail. A result in JSON (a page of hits) has its
long strings cut alike, so every hit of the page keeps its id, dates and the start
of its text: cut from the end, the page would show its first hit or two, and the
others could be reached by no call (the next page starts after them). The marker
tells the model how to reach the rest.

Each result alone fits its share, but a turn may ask for several: three pages of long
hits fill a 4,096-token window. When the current turn no longer fits once everything
older is summarised, its results share what is left (``shared_results``): the largest
are cut again from their full text, down to every hit's id and the start of its text.

So do the turn's own calls, first (``shared_calls``): a long document filed in many steps
takes an eighth of the budget a step, and by the seventh the turn no longer fits. Their
arguments are cut again from the calls as stored, to one cap for all, down to the start
of each call; the model wrote them, and what it reads next is the results.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tiermem.agent.repeated_calls import split_note
from tiermem.memory.text.tokenizer import TokenCounter, get_encoding
from tiermem.tools.dispatch import MAX_ARGUMENT_NESTING, render

MIN_SHOWN_TOKENS = 64
#: What the marker of the model's own trimmed call advises.
RECALL_ADVICE = "the full text is stored in recall"
#: One assistant message's arguments may take this fraction of the prompt budget.
SHOWN_SHARE = 1 / 8
#: One tool result may take this fraction of the prompt budget.
RESULT_SHARE = 1 / 4


def shown_in_window(message: dict[str, Any], budget: int,
                    counter: TokenCounter) -> dict[str, Any]:
    """``message`` as the window shows it for a prompt ``budget``: its calls' arguments
    trimmed (``trimmed_for_context``), or, for a tool result, its text cut to
    ``RESULT_SHARE`` of the budget."""
    if message.get("role") != "tool":
        return trimmed_for_context(message, shown_call_tokens(budget), counter)
    content = message.get("content")
    limit = max(MIN_SHOWN_TOKENS, int(budget * RESULT_SHARE))
    if not isinstance(content, str) or counter.count(content) <= limit:
        return message
    return {**message, "content": _trimmed_result(content, limit, counter)}


#: The fewest tokens of each long string a trimmed JSON result shows before it is cut
#: from the end instead (too many strings to show each one's start).
MIN_RESULT_STRING_TOKENS = 16


def _trimmed_result(content: str, limit: int, counter: TokenCounter) -> str:
    """``content`` within ``limit`` tokens: in JSON, each long string cut to a share (every
    hit of a page still shown, by id and the start of its text); else cut from the end.
    The note a repeated call's result ends with (agent/repeated_calls.py) is kept whole
    after the result it follows, trimmed as the tool gave it."""
    body, note = split_note(content)
    if note:
        return _trimmed_result(body, max(1, limit - counter.count(note)), counter) + note
    try:
        parsed = json.loads(content)
    except (ValueError, RecursionError):
        parsed = None
    if isinstance(parsed, dict | list):
        cap = limit // 2
        while True:
            cap = max(cap, MIN_RESULT_STRING_TOKENS)
            shown = _strings_cut(parsed, cap, counter)
            if counter.count(shown) <= limit:
                return shown
            if cap == MIN_RESULT_STRING_TOKENS:
                break
            cap = cap * 3 // 4
    return _head(content, limit, counter, RESULT_ADVICE)


def _strings_cut(parsed: Any, cap: int, counter: TokenCounter) -> str:
    return render(_trimmed_strings(parsed, cap, counter, 0, RESULT_STRING_ADVICE))


def shared_results(results: list[tuple[str, str]], room: int,
                   counter: TokenCounter) -> tuple[list[str] | None, int]:
    """One turn's tool results, each given as (what the window shows, its full text), shown
    within ``room`` tokens together, and the fewest tokens they could take.

    The largest are cut first, to one cap for all, each again from its full text with the
    markers of ``_trimmed_result``, so every hit of a page keeps its id and the start of
    its text; none is cut below that (``least_shown``), none grows past what it shows now,
    and a result within the cap is returned unchanged (the same object). None when even
    the least of each would take more than ``room``.
    """
    sizes = [counter.count(shown) for shown, _ in results]
    floors = [min(size, counter.count(least_shown(full, counter)))
              for size, (_, full) in zip(sizes, results, strict=True)]
    if sum(floors) > room:
        return None, sum(floors)

    def total(cap: int) -> int:
        return sum(min(size, max(cap, floor)) for size, floor in zip(sizes, floors, strict=True))

    low, high = 0, max(sizes, default=0)
    while low < high:  # the largest cap that fits
        middle = (low + high + 1) // 2
        low, high = (middle, high) if total(middle) <= room else (low, middle - 1)
    shown = []
    for size, floor, (text, full) in zip(sizes, floors, results, strict=True):
        limit = max(low, floor)
        shown.append(text if size <= limit else _result_within(full, limit, counter))
    return shown, sum(floors)


def shared_calls(calls: list[tuple[dict[str, Any], dict[str, Any]]], room: int,
                 count: Callable[[dict[str, Any]], int],
                 counter: TokenCounter) -> list[dict[str, Any]]:
    """One turn's assistant messages of tool calls, each given as (what the window shows,
    the message as stored), with their arguments cut again from the stored ones
    (``trimmed_for_context``) to the largest cap, one for all, at which they take at most
    ``room`` tokens together (``count`` counts a message as the prompt does); at the
    least, each call ``MIN_SHOWN_TOKENS``, which may take more than ``room``. None grows
    past what it shows now, and one within the cap is returned unchanged (the same
    object)."""
    sizes = [count(shown) for shown, _ in calls]

    def at(cap: int) -> list[dict[str, Any]]:
        shown = []
        for (now, full), size in zip(calls, sizes, strict=True):
            cut = trimmed_for_context(full, cap, counter)
            shown.append(cut if cut is not full and count(cut) < size else now)
        return shown

    low, high = MIN_SHOWN_TOKENS, max([MIN_SHOWN_TOKENS, *sizes])
    while low < high:  # the largest cap that fits
        middle = (low + high + 1) // 2
        fits = sum(count(message) for message in at(middle)) <= room
        low, high = (middle, high) if fits else (low, middle - 1)
    return at(low)


def least_shown(content: str, counter: TokenCounter) -> str:
    """The least of a tool result the window shows when results must share it: in JSON,
    every string cut to ``MIN_RESULT_STRING_TOKENS`` (each hit's id and the start of its
    text); else its first ``MIN_SHOWN_TOKENS``, marker included. A repeated call's note
    stays whole."""
    body, note = split_note(content)
    if note:
        return least_shown(body, counter) + note
    try:
        parsed = json.loads(content)
    except (ValueError, RecursionError):
        parsed = None
    if isinstance(parsed, dict | list):
        return _strings_cut(parsed, MIN_RESULT_STRING_TOKENS, counter)
    return _result_within(content, MIN_SHOWN_TOKENS, counter)


def _result_within(content: str, limit: int, counter: TokenCounter) -> str:
    """``_trimmed_result``, with the marker of a result cut from the end counted in
    ``limit`` too (and a repeated call's note, kept whole)."""
    body, note = split_note(content)
    if note:
        return _result_within(body, max(1, limit - counter.count(note)), counter) + note
    shown = _trimmed_result(content, limit, counter)
    over = counter.count(shown) - limit
    if over > 0 and shown.endswith(f"; {RESULT_ADVICE}]"):
        shown = _head(content, max(1, limit - over), counter, RESULT_ADVICE)
    return shown


def shown_call_tokens(budget: int) -> int:
    """How many tokens of one message's call arguments the model is shown, for a prompt
    budget."""
    return max(MIN_SHOWN_TOKENS, int(budget * SHOWN_SHARE))


def trimmed_for_context(message: dict[str, Any], limit: int,
                        counter: TokenCounter) -> dict[str, Any]:
    """``message`` with its calls' arguments cut to ``limit`` tokens together (each call an
    equal share, at least ``MIN_SHOWN_TOKENS``), and the text beside them to ``limit``.

    Sharing the limit keeps a message of many calls (a document filed in parts) as small
    as one of a single long call. Messages without tool calls, and calls already within
    their share, are returned unchanged (the same objects), so the trimmed copy differs
    only where it must.
    """
    calls = message.get("tool_calls")
    if not calls:
        return message
    share = max(MIN_SHOWN_TOKENS, limit // len(calls))
    shown_calls = [_trimmed_call(call, share, counter) for call in calls]
    content = message.get("content")
    shown_content = (_head(content, limit, counter)
                     if isinstance(content, str) and counter.count(content) > limit else content)
    if shown_content is content and all(a is b for a, b in zip(shown_calls, calls, strict=True)):
        return message
    return {**message, "content": shown_content, "tool_calls": shown_calls}


def _trimmed_call(call: dict[str, Any], limit: int, counter: TokenCounter) -> dict[str, Any]:
    function = call.get("function")
    arguments = function.get("arguments") if isinstance(function, dict) else None
    if not isinstance(function, dict) or not isinstance(arguments, str):
        return call
    if counter.count(arguments) <= limit:
        return call
    try:
        parsed = json.loads(arguments)
    except (ValueError, RecursionError):
        shown = _head(arguments, limit, counter)  # dispatch has told the model it was unreadable
    else:
        shown = json.dumps(_trimmed_strings(parsed, max(1, limit // 2), counter, 0),
                           ensure_ascii=False)
        if counter.count(shown) > limit:  # many medium strings rather than one long one
            shown = json.dumps({"omitted": f"{len(arguments):,} characters of arguments, too "
                                           "long to show here; the full call is in recall"})
    return {**call, "function": {**function, "arguments": shown}}


def _trimmed_strings(value: Any, cap: int, counter: TokenCounter, depth: int,
                     advice: str = RECALL_ADVICE) -> Any:
    if isinstance(value, str):
        return _head(value, cap, counter, advice) if counter.count(value) > cap else value
    if depth >= MAX_ARGUMENT_NESTING:  # dispatch refused it; no need to look deeper
        return value
    if isinstance(value, dict):
        return {key: _trimmed_strings(item, cap, counter, depth + 1, advice)
                for key, item in value.items()}
    if isinstance(value, list):
        return [_trimmed_strings(item, cap, counter, depth + 1, advice) for item in value]
    return value


#: What the marker of a trimmed tool result advises.
RESULT_ADVICE = "ask for less (a narrower query, tags or dates) to see the rest"
#: What the marker of one string cut in a JSON tool result (a hit's text) advises.
RESULT_STRING_ADVICE = "search with words from further on to find the rest"


def _head(text: str, tokens: int, counter: TokenCounter, advice: str = RECALL_ADVICE) -> str:
    encoding = get_encoding(counter.encoding)
    head = encoding.decode(encoding.encode(text, disallowed_special=())[:tokens])
    return (f"{head}… [trimmed for the context window: {len(text) - len(head):,} of "
            f"{len(text):,} characters not shown; {advice}]")
