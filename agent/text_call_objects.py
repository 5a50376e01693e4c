"""Reading the text of one tool call a model wrote as text (agent/text_tool_calls.py).

A call object is ``{"name": ..., "arguments": ...}``: ``arguments`` an object or JSON
text, or called ``parameters``; the OpenAI item shape ``{"type": "function", "function":
{...}}`` counts too, and so does an object that holds the calls: ``{"tool_calls": [...]}``
(as llama.cpp's generic tool format has a model write them, and as a model that has seen
OpenAI's messages writes its own, perhaps with ``"role": "assistant"`` and an empty
``"content"``) or ``{"tool_call": {...}}``. Outside markup, such an object is calls only
when it is the whole reply, bare or fenced: beside prose, it is a response quoted. A call
holds no other keys, so a tool's schema (with a description) or any other JSON that
happens to have a "name" is not a call; inside call markup, other keys beside the name and
the arguments (``"id"``) are ignored. A
``request_heartbeat`` beside them, in markup or not, the model means as an argument: it
joins the arguments unless they give their own or it is null.

Where the call was written decides which names count (``marked``). Inside markup that
only ever holds calls (``<tool_call>`` tags, Phi's ``<|tool_call|>``, Llama's
``<|python_tag|>`` and ``<function=...>``, Mistral's ``[TOOL_CALLS]``) any name makes a
call, so that a call to a tool the request did not offer is answered the way a structured
one is (with the tools there are, and the likeliest one meant) rather than shown as the
reply; there ``arguments`` may be left out too. JSON without such markup is a call only
when it names an offered tool and gives its arguments; otherwise an ordinary JSON reply
would be taken for one.

A name may come with the namespace a model family puts before its tools' names
(``functions.NAME``, as OpenAI's harmony format and models trained on it write it;
``default_api.NAME``, as Gemma and Gemini write Python calls): when only that keeps it
from naming an offered tool, it names that tool (``offered_name``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from tiermem.agent.llm import ToolCall, is_whole_json
from tiermem.tools.declare import HEARTBEAT_PARAM

__all__ = ["END_OF_TURN", "FENCE", "NAMESPACES", "TextToolCalls", "call_sequence", "calls_in",
           "calls_then_text", "cut_call", "named_call", "offered_name", "python_calls_in",
           "spliced", "unreadable_call", "whole_without_arguments", "without_end_tokens"]

#: A fenced block (```json ... ```, or labelled ``tool_calls``), to its end or, when the reply
#: was cut inside it, to the end of the text; its label line may end in "\r\n", or go on
#: to the JSON on the same line, as small models write one (```json [...]```).
FENCE = re.compile(r"```[ \t]*(?:json|JSON|tool_calls?)?[ \t]*(?:\r?\n|(?=[\[{]))(.*?)(?:```|\Z)",
                   re.DOTALL)
_NAME_FIELD = re.compile(r'"name"\s*:\s*"([^"\\]{1,200})"')
#: A JSON string, and an ellipsis where a value belongs: the form of a call shown with
#: a placeholder (``{"content": ...}``, ``{...}``), not a call.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_PLACEHOLDER = re.compile(r"[:\[{,]\s*(?:\.\.\.|\u2026)")
_CALL_KEYS = frozenset({"name", "arguments", "parameters", "id", "type"})
#: What may separate calls written one after another (Llama 3.1 puts ";" between them).
_SEPARATORS = " \t\r\n,;"
#: End-of-turn tokens a server may leave at the end of the text when its template and the
#: model disagree on them: Llama's, ChatML's (Qwen, SmolLM), Gemma's, Phi's, Mistral's.
END_OF_TURN = ("</s>", "<|eom_id|>", "<|eot_id|>", "<|eom|>", "<|eot|>", "<|im_end|>",
               "<|endoftext|>", "<end_of_turn>", "<|end|>")
#: The namespaces models write before a tool's name (module docstring).
NAMESPACES = ("functions.", "default_api.")


@dataclass
class TextToolCalls:
    """What content held: the ``calls`` (complete ones first, then any cut one) and the
    ``rest`` of the text with the calls taken out, stripped."""

    calls: list[ToolCall] = field(default_factory=list)
    rest: str = ""


def offered_name(name: str, names: Collection[str]) -> str:
    """``name`` without the namespace before it when only that keeps it from being one of
    ``names`` (``functions.core_memory_append``); else ``name`` as it is."""
    if name in names:
        return name
    for namespace in NAMESPACES:
        if name.startswith(namespace) and name[len(namespace):] in names:
            return name[len(namespace):]
    return name


def spliced(pieces: list[str]) -> str:
    """The text around calls taken out of it, stripped: ``pieces`` joined where the calls
    were, the spaces on either side of a call one space ("Saving. <call> Done." reads
    "Saving. Done."), and none beside a line break or at the text's start or end."""
    text = pieces[0] if pieces else ""
    for piece in pieces[1:]:
        left, right = text.rstrip(" \t"), piece.lstrip(" \t")
        spaced = (left != text or right != piece) and left and right \
            and not left.endswith("\n") and not right.startswith("\n")
        text = f"{left} {right}" if spaced else left + right
    return text.strip()


def without_end_tokens(text: str, tokens: tuple[str, ...]) -> str:
    """``text`` stripped, without the end-of-turn ``tokens`` a server left after it."""
    text = text.strip()
    while text.endswith(tokens):
        text = text[: text.rfind("<")].rstrip()
    return text


def calls_in(text: str, names: frozenset[str], *, marked: bool,
             held: bool = True) -> list[ToolCall] | None:
    """The calls in ``text``, one JSON value that is a call or a list of them; else None.
    Without ``held``, an object holding the calls is none (module docstring)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return _calls_from(value, names, marked=marked, held=held)


def python_calls_in(value: Any, names: frozenset[str], *, marked: bool,
                    held: bool = True) -> list[ToolCall] | None:
    """The calls in ``value``, a call object (or a list of them) read from Python literal
    text (``{'name': ..., 'arguments': {...}}``) rather than JSON; else None."""
    return _calls_from(value, names, marked=marked, held=held)


def call_sequence(text: str, names: frozenset[str], *, marked: bool,
                  cut: bool) -> list[ToolCall] | None:
    """The calls in ``text`` when all of it is calls: JSON values one after another (each a
    call or a list of them), the last one possibly cut off (with ``cut``); else None."""
    text = text.strip()
    calls, position, _ = _leading_calls(text, names, marked=marked)
    if calls is None or position == len(text):
        return calls
    cut_off = cut_call(text[position:], names, marked=marked) if cut else None
    return calls + cut_off if cut_off else None


def calls_then_text(text: str, names: frozenset[str]) -> TextToolCalls | None:
    """The calls ``text`` begins with, JSON values one after another naming offered tools,
    and the text after them, when a line break parts the two and that text is no more JSON
    (``{"name": ..., "parameters": {...}}`` then ``I have saved that.``, as Llama 3.1
    writes); else None."""
    text = text.strip()
    calls, position, last_end = _leading_calls(text, names, marked=False, held=False)
    if not calls or position == len(text) or text[position] in "{[" \
            or "\n" not in text[last_end:position]:
        return None
    return TextToolCalls(calls, text[position:])


def _leading_calls(text: str, names: frozenset[str], *, marked: bool,
                   held: bool = True) -> tuple[list[ToolCall] | None, int, int]:
    """The calls ``text`` begins with, JSON values one after another; where they stop (past
    the separators after the last) and where the last one ends. None for the calls when a
    value is no call, or when ``text`` begins with no JSON object or list."""
    if not text.startswith(("{", "[")):
        return None, 0, 0
    decoder = json.JSONDecoder()
    calls: list[ToolCall] = []
    position = last_end = 0
    while position < len(text) and text[position] in "{[":
        try:
            value, last_end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            break
        found = _calls_from(value, names, marked=marked, held=held)
        if found is None:
            return None, position, last_end
        calls += found
        position = last_end
        while position < len(text) and text[position] in _SEPARATORS:
            position += 1
    return calls, position, last_end


def named_call(name: str, arguments: str, *, unfinished: bool, alone: bool = True,
               schemas: Mapping[str, Any] | None = None) -> list[ToolCall] | None:
    """The call when markup gave the tool's name and its arguments' text follows
    (``<function=NAME>{...}``, ``[TOOL_CALLS]NAME[ARGS]{...}``): no text is ``{}``, unless
    ``unfinished`` (cut off mid-way: the arguments were never written), or not ``alone``
    (prose around the markup names it: "Llama writes <function=NAME>") for a tool whose
    schema in ``schemas`` requires an argument, or is not known (a tool offered with no
    parameters schema requires none): then it is no call, ``[]``;
    text that is not a JSON object is no call, unless ``unfinished`` and it begins one that
    the cut left open: prose after the name ("<function=NAME>, then the arguments") or after
    whole arguments (``[ARGS]{}` like so.``) mentions the markup."""
    arguments = arguments.strip()
    if not arguments:
        if not (alone or unfinished) and _needs_arguments(name, schemas or {}):
            return []
        return [ToolCall("", name, "" if unfinished else "{}")]
    try:
        value = json.loads(arguments)
    except (ValueError, RecursionError):
        begun = unfinished and arguments.startswith("{") and not _closes(arguments)
        return [ToolCall("", name, arguments)] if begun else None
    return [ToolCall("", name, arguments)] if isinstance(value, dict) else None


def _closes(text: str) -> bool:
    """Whether the JSON value ``text`` begins with ends before the end of the text."""
    try:
        json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        return False
    return True


def whole_without_arguments(name: str, names: Collection[str],
                            schemas: Mapping[str, Any] | None) -> bool:
    """Whether ``name`` alone, where the token limit cut the reply, is a whole call: it names
    an offered tool that requires no argument, and no other offered name goes on from it
    (``get_time`` beside ``get_time_zone`` may have been cut)."""
    key = offered_name(name, names)
    return key in names and not _needs_arguments(key, schemas or {}) \
        and not any(other != key and other.startswith(key) for other in names)


def _needs_arguments(name: str, schemas: Mapping[str, Any]) -> bool:
    """Whether the tool ``name`` requires an argument: its schema says so, or it is not
    known; a tool offered with no parameters schema takes none."""
    key = offered_name(name, schemas)
    if key not in schemas:
        return True
    schema = schemas[key]
    return schema is not None and (not isinstance(schema, Mapping)
                                   or bool(schema.get("required")))


def cut_call(fragment: str, names: frozenset[str], *, marked: bool) -> list[ToolCall] | None:
    """A call cut off mid-way, if the fragment names a tool that counts; its arguments are
    the unfinished text, which is not valid JSON. A list of whole calls the limit cut just
    before its closing bracket (``[{...}``) is those calls: none of them was cut."""
    if fragment.lstrip().startswith("["):
        whole = calls_in(fragment.rstrip() + "]", names, marked=marked)
        if whole is not None:
            return whole
    match = _NAME_FIELD.search(fragment)
    if match is None or not _counts(match.group(1), names, marked) or is_whole_json(fragment):
        return None
    return [ToolCall("", offered_name(match.group(1), names), fragment.strip())]


def unreadable_call(text: str, names: frozenset[str]) -> list[ToolCall] | None:
    """The call ``text`` means when it is a call object naming an offered tool that is not
    valid JSON (``{"name": "core_memory_append", "arguments": {...}`` without its last
    brace), its text as arguments, so that running it tells the model what is wrong;
    else None, also for one with an ellipsis for a value, which shows the form."""
    text = text.strip()
    match = _NAME_FIELD.search(text)
    if not text.startswith("{") or match is None or is_whole_json(text) \
            or _PLACEHOLDER.search(_STRING.sub('""', text)):
        return None  # "arguments": {...} is a form shown, with no value to write again
    name = offered_name(match.group(1), names)
    return [ToolCall("", name, text)] if name in names else None


def _calls_from(value: Any, names: frozenset[str], *, marked: bool,
                held: bool = True) -> list[ToolCall] | None:
    """The calls in a decoded value (an object or a list of them), or None if any item is
    not a call: a list that is half calls is data, not a batch of calls."""
    value = _unwrapped(value) if held else value
    items = value if isinstance(value, list) else [value]
    calls = [_call(item, names, marked) for item in items]
    if not items or any(c is None for c in calls):
        return None
    return [c for c in calls if c is not None]


def _unwrapped(value: Any) -> Any:
    """The calls an object of the calls holds (module docstring); else ``value``."""
    if not isinstance(value, dict) or value.get("role", "assistant") != "assistant" \
            or value.get("content"):
        return value
    keys = set(value) - {"role", "content"}
    if keys == {"tool_calls"} and isinstance(value["tool_calls"], list):
        return value["tool_calls"] or value  # none at all is no call
    if keys == {"tool_call"} and isinstance(value["tool_call"], dict):
        return value["tool_call"]
    return value


def _call(item: Any, names: frozenset[str], marked: bool) -> ToolCall | None:
    if not isinstance(item, dict):
        return None
    if "name" not in item and isinstance(item.get("function"), dict):
        item = item["function"]  # the OpenAI item shape, written out
    name = item.get("name")
    if not isinstance(name, str) or not _counts(name, names, marked):
        return None
    name = offered_name(name, names)
    key = "arguments" if "arguments" in item else "parameters" if "parameters" in item else None
    if not set(item) - {HEARTBEAT_PARAM} <= _CALL_KEYS and not (marked and key):
        # Inside call markup a key beside the name and its arguments (an id) is the model's
        # habit and ignored; outside it, the object is some other data.
        return None
    if key is None:
        # Inside call markup the intent is plain; a bare {"name": ...} may be data.
        return ToolCall("", name, "{}") if marked else None
    arguments = item[key]
    if key == "parameters" and _looks_like_schema(arguments):
        return None
    if item.get(HEARTBEAT_PARAM) is not None:
        arguments = _with_heartbeat(arguments, item[HEARTBEAT_PARAM])
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return ToolCall("", name, text)


def _with_heartbeat(arguments: Any, heartbeat: Any) -> Any:
    """``arguments`` (an object, or JSON text of one) with the heartbeat a model wrote beside
    them, unless they give their own; anything else as it is."""
    value = arguments
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except (ValueError, RecursionError):
            return arguments
    if not isinstance(value, dict) or HEARTBEAT_PARAM in value:
        return arguments
    return {**value, HEARTBEAT_PARAM: heartbeat}


def _counts(name: str, names: frozenset[str], marked: bool) -> bool:
    return offered_name(name, names) in names or (marked and bool(name.strip()))


def _looks_like_schema(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "object" and "properties" in value


def ends_in_prose(rest: str, content: str) -> bool:
    """Whether the text left around the calls ends ``content``: prose after the last call.
    ``rest`` joins the text before the calls to the text after them, so it need not all be
    at the end; the two share a tail of whole words only when the reply ends in prose,
    not in call markup (``}``, ``)``, a fence, a closing tag or the start of one)."""
    shared = 0
    while shared < min(len(rest), len(content)) and rest[-1 - shared] == content[-1 - shared]:
        shared += 1
    tail = rest[len(rest) - shared:]
    starts_a_word = all(len(text) == shared or not text[-1 - shared].isalnum()
                        for text in (rest, content))
    return starts_a_word and any(char.isalnum() for char in tail)
