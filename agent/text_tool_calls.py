"""Tool calls that a model wrote as text instead of the server returning them as ``tool_calls``.

A server parses tool calls out of the model's output only when its chat
template knows the model's format; otherwise, and with small models that drift
from it, the call arrives as plain content. These forms are recognised:

- Hermes / Qwen tags: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``,
  one or several, with text around them allowed (a last tag may be unclosed);
- a bare JSON object ``{"name": ..., "arguments": ...}`` (or a list of them,
  or several one after another) that is the whole content;
- a fenced block (```json ... ```) holding such an object or list.

``arguments`` may be an object or JSON text, and may be called
``parameters``; the OpenAI item shape ``{"type": "function", "function":
{...}}`` counts too. Only names of the offered tools count, so JSON that
merely mentions a tool, or echoes a tool's schema, is not a call. Content that
a server HTML-escaped (llama-cpp-python's chatml-function-calling renders
``&lt;tool_call&gt;`` and ``&#34;``) is read unescaped.

With ``cut=True`` (the reply stopped at ``max_tokens``), a call that begins
but never ends is returned too, with its unfinished text as ``arguments``,
so that the caller can see a tool call was cut off rather than take the
fragment for a reply. Such arguments are never valid JSON.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from tiermem.agent.llm import ToolCall, is_whole_json

__all__ = ["TextToolCalls", "find_text_tool_calls", "offered_names", "parse_text_tool_calls"]

_OPEN, _CLOSE = "<tool_call>", "</tool_call>"
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)
_NAME = re.compile(r'"name"\s*:\s*"([^"\\]{1,200})"')
_ESCAPED = ("&lt;tool_call&gt;", "&#34;", "&quot;")
# A call object holds these keys and no others: a tool's schema (with a description)
# or any other JSON that happens to have a "name" is not a call.
_CALL_KEYS = frozenset({"name", "arguments", "parameters", "id", "type"})


@dataclass
class TextToolCalls:
    """What content held: the ``calls`` (complete ones first, then any cut one) and the
    ``rest`` of the text with the calls taken out, stripped."""

    calls: list[ToolCall] = field(default_factory=list)
    rest: str = ""


def offered_names(tools: Sequence[dict[str, Any]]) -> list[str]:
    """The function names in OpenAI tool schemas."""
    names = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.append(function["name"])
    return names


def parse_text_tool_calls(content: str, tool_names: Collection[str]) -> list[ToolCall]:
    """The complete tool calls written as text in ``content``, in order; [] if none."""
    return find_text_tool_calls(content, tool_names).calls


def find_text_tool_calls(
    content: str,
    tool_names: Collection[str],
    *,
    cut: bool = False,
    call_id: Callable[[int], str] | None = None,
) -> TextToolCalls:
    """The calls in ``content`` and the text around them (see the module docstring).

    ``call_id(index)`` names each call (default ``text_call_<index>``). When
    nothing is found, ``rest`` is the content unchanged.
    """
    names = frozenset(tool_names)
    found = _find(content, names, cut) if names else TextToolCalls(rest=content)
    if not found.calls and any(mark in content for mark in _ESCAPED):
        unescaped = _find(html.unescape(content), names, cut)
        if unescaped.calls:
            found = unescaped
    if not found.calls:
        return TextToolCalls(rest=content)
    make_id = call_id or (lambda index: f"text_call_{index}")
    found.calls = [ToolCall(make_id(i), c.name, c.arguments, from_text=True)
                   for i, c in enumerate(found.calls)]
    return found


def _find(content: str, names: frozenset[str], cut: bool) -> TextToolCalls:
    for form in (_tagged, _fenced, _bare):
        found = form(content, names, cut)
        if found.calls:
            return found
    return TextToolCalls(rest=content)


def _tagged(content: str, names: frozenset[str], cut: bool) -> TextToolCalls:
    calls: list[ToolCall] = []
    kept: list[str] = []
    position = 0
    while (start := content.find(_OPEN, position)) >= 0:
        body_start = start + len(_OPEN)
        end = content.find(_CLOSE, body_start)
        following = content.find(_OPEN, body_start)
        closed = end >= 0 and (following < 0 or end < following)
        body_end = end if closed else (following if following >= 0 else len(content))
        after = body_end + len(_CLOSE) if closed else body_end
        found = _calls_in(_unfenced(content[body_start:body_end]), names, lenient=True)
        if found is None and cut and not closed and following < 0:
            found = _cut_call(content[body_start:body_end], names)
        if found is None:
            # Not a call (a tag followed by prose, say): the text stays as it was.
            kept.append(content[position:after])
        else:
            kept.append(content[position:start])
            calls += found
        position = after
    kept.append(content[position:])
    return TextToolCalls(calls, "".join(kept).strip()) if calls else TextToolCalls(rest=content)


def _fenced(content: str, names: frozenset[str], cut: bool) -> TextToolCalls:
    calls: list[ToolCall] = []
    kept: list[str] = []
    position = 0
    for match in _FENCE.finditer(content):
        found = _calls_in(match.group(1), names, lenient=False)
        if found is None and cut and not match.group(0).endswith("```"):  # cut inside it
            found = _cut_call(match.group(1), names)
        if found is not None:
            kept.append(content[position:match.start()])
            calls += found
            position = match.end()
    kept.append(content[position:])
    return TextToolCalls(calls, "".join(kept).strip()) if calls else TextToolCalls(rest=content)


def _bare(content: str, names: frozenset[str], cut: bool) -> TextToolCalls:
    text = content.strip()
    if not text.startswith(("{", "[")):
        return TextToolCalls(rest=content)
    decoder = json.JSONDecoder()
    calls: list[ToolCall] = []
    position = 0
    while position < len(text):
        try:
            value, end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            cut_call = _cut_call(text[position:], names) if cut else None
            return TextToolCalls(calls + cut_call, "") if cut_call else TextToolCalls(rest=content)
        found = _calls_from(value, names, lenient=False)
        if found is None:
            return TextToolCalls(rest=content)
        calls += found
        position = end
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
    return TextToolCalls(calls, "")


def _unfenced(body: str) -> str:
    match = _FENCE.search(body)
    return match.group(1) if match and not body[: match.start()].strip() else body


def _calls_in(text: str, names: frozenset[str], *, lenient: bool) -> list[ToolCall] | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return _calls_from(value, names, lenient=lenient)


def _calls_from(value: Any, names: frozenset[str], *, lenient: bool) -> list[ToolCall] | None:
    """The calls in a decoded value (an object or a list of them), or None if any item is
    not a call: a list that is half calls is data, not a batch of calls."""
    items = value if isinstance(value, list) else [value]
    calls = [_call(item, names, lenient) for item in items]
    if not items or any(c is None for c in calls):
        return None
    return [c for c in calls if c is not None]


def _call(item: Any, names: frozenset[str], lenient: bool) -> ToolCall | None:
    if not isinstance(item, dict):
        return None
    if "name" not in item and isinstance(item.get("function"), dict):
        item = item["function"]  # the OpenAI item shape, written out
    name = item.get("name")
    if not isinstance(name, str) or name not in names or not set(item) <= _CALL_KEYS:
        return None
    key = "arguments" if "arguments" in item else "parameters" if "parameters" in item else None
    if key is None:
        # Inside <tool_call> tags the intent is plain; a bare {"name": ...} may be data.
        return ToolCall("", name, "{}") if lenient else None
    arguments = item[key]
    if key == "parameters" and _looks_like_schema(arguments):
        return None
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return ToolCall("", name, text)


def _looks_like_schema(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "object" and "properties" in value


def _cut_call(fragment: str, names: frozenset[str]) -> list[ToolCall] | None:
    """A call cut off mid-way, if the fragment names an offered tool; its arguments are the
    unfinished text, which is not valid JSON."""
    match = _NAME.search(fragment)
    if match is None or match.group(1) not in names or is_whole_json(fragment):
        return None
    return [ToolCall("", match.group(1), fragment.strip())]
