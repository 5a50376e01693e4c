"""Reading call markup out of a reply's text: calls in tags, each body running to its
closing tag, and calls after a marker (agent/text_call_markup.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache

from tiermem.agent.llm import ToolCall
from tiermem.agent.text_call_objects import TextToolCalls, spliced, without_end_tokens

__all__ = ["BodyReader", "SegmentReader", "after_marker", "begins_call", "marker_starts", "tagged",
           "without_markup_end_tokens"]

#: How many later closing tags a body is tried up to when it does not read at its first.
_MAX_QUOTED_CLOSINGS = 4
_SPACE = re.compile(r"\s*")
_SPACE_OR_TICKS = re.compile(r"[\s`]*")
_END_TOKENS = ("</s>", "<|eom_id|>", "<|eot_id|>", "<|end|>")
#: How many later markers a call's JSON is tried up to when it does not end before the next.
_MAX_QUOTED_MARKERS = 4
_DECODER = json.JSONDecoder()
#: A JSON string (the second group empty when it is left open) or a bracket.
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*("?)|[\[\]{}]', re.DOTALL)

# What a tag's body holds, given the tag, the body and whether the reply was cut inside it.
BodyReader = Callable[[re.Match[str], str, bool], "list[ToolCall] | None"]
# What the text after a marker holds, given it and whether the reply may have been cut in it.
SegmentReader = Callable[[str, bool], "list[ToolCall] | None"]


def tagged(content: str, opening: re.Pattern[str], closing: str, read: BodyReader,
           cut: bool, unreadable: Callable[[str], list[ToolCall] | None] | None = None,
           quoted: bool = True) -> TextToolCalls:
    """Calls in tags: each body runs to its closing tag, the next opening tag or the end.
    A tag whose body is no call (a tag followed by prose, say) stays as it was, unless
    ``unreadable`` finds in it a call the model meant but wrote wrong. With ``quoted``, a
    call quoted as inline code beside other text is an example; beside nothing but other
    calls, so quoted or not, it is a call."""
    calls: list[ToolCall] = []
    kept: list[list[str]] = [[]]  # the text between the calls taken out
    examples = []  # the text of the calls quoted as examples
    position = 0
    end = 0  # the first closing tag at or after the last body's start, -1 when none is
    while (tag := opening.search(content, position)) is not None:
        body_start = tag.end()
        if 0 <= end < body_start:
            # Searched again only past the last one found: a reply of many opening tags
            # and no closing one would otherwise be scanned to its end once per tag.
            end = content.find(closing, body_start)
        following = opening.search(content, body_start)
        closed = end >= 0 and (following is None or end < following.start())
        body_end = end if closed else following.start() if following else len(content)
        after = body_end + len(closing) if closed else body_end
        found = read(tag, content[body_start:body_end], cut and not closed and not following)
        if found is None and closed:
            # The closing tag may be inside the call's own text ("content": "... </tool_call>
            # ..."): the body then runs to a later one, or to the end when none follows.
            limit = following.start() if following else len(content)
            found, body_end, after = _through_quoted_closings(content, tag, body_end, limit,
                                                              closing, read)
        if found is None and unreadable and (closed or not (following or cut)) \
                and _only_calls_follow(content, after, opening) \
                and (closed or not _fence_closes(content, body_end)):
            # Amid prose ("write <tool_call>{...}</tool_call> to save"), it is an example.
            found = unreadable(content[body_start:body_end])
        if quoted and found is not None and closed \
                and _in_inline_code(content, tag.start(), after):
            found = None  # "write `<tool_call>{...}</tool_call>` to save" shows the form
            examples.append(content[tag.start():after])
        if found is None:
            kept[-1].append(content[position:after])
        else:
            kept[-1].append(content[position:tag.start()])
            kept.append([])
            calls += found
        position = after
    kept[-1].append(content[position:])
    rest = spliced(["".join(piece) for piece in kept])
    beside = rest
    for example in examples:
        beside = beside.replace(example, "", 1)
    if examples and _SPACE_OR_TICKS.fullmatch(beside):
        # "`<tool_call>{...}</tool_call>` `<tool_call>{...}</tool_call>`": calls, each quoted
        return tagged(content, opening, closing, read, cut, unreadable, quoted=False)
    return TextToolCalls(calls, rest) if calls else TextToolCalls(rest=content)


def _in_inline_code(content: str, start: int, end: int) -> bool:
    """Whether ``content[start:end]`` is all of an inline code span (`...` or ``...``, the
    same backticks either side, not a fence's three) in a sentence, as the sentence quotes
    an example."""
    before = content[max(0, start - 3):start]
    ticks = len(before) - len(before.rstrip("`"))
    after = content[end:end + 3]
    return ticks in (1, 2) and len(after) - len(after.lstrip("`")) == ticks \
        and bool(content[:start - ticks].strip() or content[end + ticks:].strip())


def _fence_closes(content: str, end: int) -> bool:
    """Whether a code fence opened before ``end`` closes there: a tag left unclosed inside
    it is code the reply shows, not a call the reply ends with."""
    text = content[:end].rstrip()
    return text.endswith("```") and text.count("```") % 2 == 0


def _only_calls_follow(content: str, position: int, opening: re.Pattern[str]) -> bool:
    """Whether nothing but more tags of calls follows ``position`` in ``content``."""
    start = _SPACE.match(content, position)
    after = start.end() if start else position
    return after == len(content) or opening.match(content, after) is not None


def _through_quoted_closings(
        content: str, tag: re.Match[str], first: int, limit: int, closing: str,
        read: BodyReader) -> tuple[list[ToolCall] | None, int, int]:
    """The calls when a body that did not read, cut at its ``first`` closing tag, reads
    when it runs to one of the next few closing tags before ``limit``, or to ``limit`` when
    that is the end of the text; with that body's end and where the text after it starts."""
    start, end = tag.end(), first
    for _ in range(_MAX_QUOTED_CLOSINGS):
        end = content.find(closing, end + len(closing), limit)
        if end < 0:
            break
        found = read(tag, content[start:end], False)
        if found is not None:
            return found, end, end + len(closing)
    if limit == len(content):
        found = read(tag, content[start:], False)
        if found is not None:
            return found, limit, limit
    return None, first, first + len(closing)


def after_marker(content: str, marker: str, read: SegmentReader) -> TextToolCalls:
    """Calls after a marker (repeated before each call in some forms): all the text after
    the first marker must be calls; the text before it is the rest."""
    starts = marker_starts(content, marker)
    if not starts:
        return TextToolCalls(rest=content)
    start = starts[0]
    segments = [content[begin + len(marker):end]
                for begin, end in zip(starts, [*starts[1:], len(content)], strict=True)]
    calls: list[ToolCall] = []
    for index, segment in enumerate(segments):
        if not without_markup_end_tokens(segment):
            continue  # a marker repeated with nothing after it: no call, and no reply
        found = read(without_markup_end_tokens(segment), index == len(segments) - 1)
        if found is None:
            return TextToolCalls(rest=content)
        calls += found
    return TextToolCalls(calls, content[:start].strip()) if calls else TextToolCalls(rest=content)


def marker_starts(content: str, marker: str) -> list[int]:
    """Where each marker in ``content`` begins a call: not one inside a call's own JSON text
    (``"message": "Saved [TOOL_CALLS] Done."``), which the JSON begun after an earlier
    marker runs on past, or runs on in, unfinished, to the end of a reply cut there
    (``"message": "a [TOOL_CALLS] b``), as a quoted marker is text. Found once for a text,
    which each reading of a reply asks of again."""
    return list(_marker_starts(content, marker))


@lru_cache(maxsize=8)
def _marker_starts(content: str, marker: str) -> tuple[int, ...]:
    starts: list[int] = []
    position = content.find(marker)
    while position >= 0:
        starts.append(position)
        following = content.find(marker, position + len(marker))
        if following >= 0:
            following = _past_quoted_markers(content, position + len(marker), following, marker)
        position = following
    return tuple(starts)


def _past_quoted_markers(content: str, start: int, following: int, marker: str) -> int:
    """The next marker after the segment at ``start`` that begins a call: ``following``,
    unless the JSON the segment begins (a list, or the object after a name) ends only past
    it, when the first marker after that JSON's end, or -1."""
    segment = content[start:following]
    stripped = segment.lstrip()
    begin = start + len(segment) - len(stripped) if stripped.startswith("[") \
        else content.find("{", start, following)
    if begin < 0 or _json_end(content[begin:following]) is not None:
        return following
    later = following
    for _ in range(_MAX_QUOTED_MARKERS):
        later = content.find(marker, later + len(marker))
        end = _json_end(content[begin:later if later >= 0 else len(content)])
        if end is not None:
            return content.find(marker, begin + end)
        if later < 0:
            # Cut inside the call's JSON text ("message": "a [TOOL_CALLS] b): its markers are text.
            return -1 if _open_to_end(content[begin:]) else following
    return following


def begins_call(content: str, position: int, marker: str) -> bool:
    """Whether a marker at ``position`` (or the start of one a cut left there) would begin a
    call, not run on the JSON text of the call before it (``"message": "a [TOOL_CALLS]``)."""
    return position in marker_starts(content[:position] + marker, marker)


def _open_to_end(text: str) -> bool:
    """Whether the JSON value ``text`` begins with runs on, unfinished, to its end, and reads
    once its open string and brackets are closed: a call's JSON a reply was cut inside."""
    closers: list[str] = []
    open_string = False
    for token in _JSON_TOKENS.finditer(text):
        part = token.group(0)
        if part[0] == '"':
            open_string = not token.group(1)
        elif part in "[{":
            closers.append("]" if part == "[" else "}")
        elif not closers or closers.pop() != part or not closers:
            return False  # mismatched, or the value ended before the end of the text
    if not closers:
        return False
    if open_string and (len(text) - len(text.rstrip("\\"))) % 2:
        text = text[:-1]  # cut inside an escape
    completed = text + ('"' if open_string else "") + "".join(reversed(closers))
    return _json_end(completed) == len(completed)


def _json_end(text: str) -> int | None:
    """Where the JSON value ``text`` begins with ends, or None when it does not read."""
    try:
        return _DECODER.raw_decode(text)[1]
    except (ValueError, RecursionError):
        return None


def without_markup_end_tokens(text: str) -> str:
    return without_end_tokens(text, _END_TOKENS)
