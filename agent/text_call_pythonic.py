"""Tool calls written as a Python list of calls (agent/text_tool_calls.py).

Llama 3.2's small models (1B, 3B) and Llama 4, given their tools in the prompt, answer
with ``[core_memory_append(content="Allergic to peanuts"), send_message(message="Noted.")]``:
the "pythonic" format of their chat templates. A server whose template or parser does not
know it passes the list on as content.

Small models also write one call alone, without the brackets
(``core_memory_append(content="...")``), after Llama 3.1's ``<|python_tag|>`` too, and
break a string over lines with a real line break where Python wants ``\n``: both are read
as the call they mean.

The text is parsed, never run: ``ast`` reads it, and only literal values (strings,
numbers, lists, objects, ``True``/``true`` and the like) are accepted as arguments. As
with bare JSON, the list must be the whole reply and every call must name an offered
tool, so a model showing the syntax in prose, or Python code that happens to call
something, is not taken for calls.

Gemma, prompted as Google's guides show, wraps its calls in a fenced block labelled
``tool_code`` (```` ```tool_code ````): one call per line (``core_memory_append(content=
"...")``), a list of them, or each inside ``print(...)``, as in
``print(default_api.core_memory_append(...))``. The label marks the block as calls, so it is
read after prose too, as other call markup is (``tool_code_calls``), and indented as a
markdown list item indents it; it must hold nothing but calls to offered tools. A block
labelled ``python`` is code, never read.

Arguments are given by keyword, or by position, as the small models also write them
(``[core_memory_append("Allergic to peanuts")]``): positional values take the tool's
parameters in the order its JSON schema declares them, only when their count leaves no
doubt which ones are meant: all the declared parameters, or exactly the required ones
when those are the first ones declared. Any other count (``archival_memory_search("tea",
2)`` of six parameters, one required), a parameter given both ways, or a tool whose
schema is unknown leaves the text as the reply.
"""

from __future__ import annotations

import ast
import json
import math
import re
import textwrap
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from tiermem.agent.llm import ToolCall
from tiermem.agent.text_call_objects import (
    TextToolCalls,
    offered_name,
    spliced,
    without_end_tokens,
)

__all__ = ["literal_value", "pythonic_calls", "tool_code_calls"]

_START = re.compile(r"(\[)?\s*([A-Za-z_][\w.]{0,199})\s*\(")
_CALL = re.compile(r"(?:print\(\s*)?\[?\s*([A-Za-z_][\w.]{0,199})\s*\(")
#: A block labelled tool_code, to its end or, when the reply was cut inside it, the text's;
#: its label line may end in "\r\n".
_TOOL_CODE = re.compile(r"```[ \t]*tool_code[ \t]*\r?\n(.*?)(?:```|\Z)", re.DOTALL)
_NAMED_LITERALS = {"True": True, "true": True, "False": False, "false": False,
                   "None": None, "null": None}
_END_TOKENS = ("<|eom_id|>", "<|eot_id|>", "<|eom|>", "<|eot|>", "<|python_end|>", "</s>")
#: Llama 4 may open its calls with the first marker, Llama 3.1 with the second.
_START_TOKENS = ("<|python_start|>", "<|python_tag|>")
#: Longer replies are prose or data, and parsing them would only cost time.
_MAX_CHARS = 200_000


class _NotLiteral(Exception):
    """An argument that is an expression, not a value."""


def pythonic_calls(content: str, names: frozenset[str], cut: bool,
                   schemas: Mapping[str, Any] | None = None) -> TextToolCalls:
    """The calls when all of ``content`` is ``[name(key=value, ...), ...]`` naming offered
    tools; with ``cut`` (the reply stopped at max_tokens), a list that begins so but does
    not parse is one cut call, its text as arguments. ``schemas`` maps a tool's name to
    its parameters' JSON schema, which positional arguments need (module docstring)."""
    text = _without_end_tokens(content)
    start = _START.match(text)
    if start is None or offered_name(start.group(2), names) not in names \
            or len(text) > _MAX_CHARS:
        return TextToolCalls(rest=content)
    calls = _parse(text, names, schemas or {})
    if calls is None and cut and start.group(1) and text.endswith(")"):
        calls = _parse(f"{text}]", names, schemas or {})  # whole calls, cut before the "]"
    if calls is None and cut and not text.endswith("]" if start.group(1) else ")"):
        calls = [ToolCall("", start.group(2), text)]
    return TextToolCalls(calls, "") if calls else TextToolCalls(rest=content)


def tool_code_calls(content: str, names: frozenset[str], cut: bool,
                    schemas: Mapping[str, Any] | None = None,
                    example: Callable[[str, int, int], bool] | None = None) -> TextToolCalls:
    """The calls in ```` ```tool_code ```` blocks (module docstring), and the text around
    them; with ``cut``, a block the reply stopped inside that begins with a call to an
    offered tool is one cut call, its text as arguments. A block that ``example(content,
    start, end)`` says the reply shows as an example ("An example call:") holds none."""
    calls: list[ToolCall] = []
    kept: list[str] = []
    position = 0
    for match in _TOOL_CODE.finditer(content):
        if example is not None and example(content, match.start(), match.end()):
            continue
        # A block in a markdown list item is indented, body and all: Python would refuse
        # the indented first statement.
        body = textwrap.dedent(match.group(1))
        if cut and not match.group(0).endswith("```"):  # cut in the closing fence: ")\n``"
            body = body.rstrip().removesuffix("``").removesuffix("`")
        found = _code_calls(body, names, schemas or {}) if len(body) <= _MAX_CHARS else None
        start = _CALL.match(body.strip())
        if found is None and cut and not match.group(0).endswith("```") and start \
                and offered_name(start.group(1), names) in names:
            found = [ToolCall("", offered_name(start.group(1), names), body.strip())]
        if found:
            kept.append(content[position:match.start()])
            calls += found
            position = match.end()
    kept.append(content[position:])
    return TextToolCalls(calls, spliced(kept)) if calls else TextToolCalls(rest=content)


def _code_calls(body: str, names: frozenset[str],
                schemas: Mapping[str, Any]) -> list[ToolCall] | None:
    """The calls when every statement of ``body`` is a call, ``print(call)`` or a list of
    calls, each to an offered tool with literal arguments; else None."""
    tree = _tree(body, "exec")
    if not isinstance(tree, ast.Module):
        return None
    calls: list[ToolCall] = []
    for statement in tree.body:
        if not isinstance(statement, ast.Expr):
            return None
        value = statement.value
        if isinstance(value, ast.Call) and _dotted(value.func) == "print" \
                and len(value.args) == 1 and not value.keywords:
            value = value.args[0]
        for node in value.elts if isinstance(value, ast.List) else [value]:
            call = _call(node, names, schemas)
            if call is None:
                return None
            calls.append(call)
    return calls or None


def _parse(text: str, names: frozenset[str],
           schemas: Mapping[str, Any]) -> list[ToolCall] | None:
    tree = _tree(text, "eval")
    if not isinstance(tree, ast.Expression):
        return None
    # A list of calls, or one call alone: the whole reply either way.
    nodes = tree.body.elts if isinstance(tree.body, ast.List) else [tree.body]
    if not nodes or not isinstance(tree.body, ast.List | ast.Call):
        return None
    calls = []
    for node in nodes:
        call = _call(node, names, schemas)
        if call is None:
            return None
        calls.append(call)
    return calls


def _call(node: ast.expr, names: frozenset[str], schemas: Mapping[str, Any]) -> ToolCall | None:
    if not isinstance(node, ast.Call):
        return None
    name = offered_name(_dotted(node.func) or "", names)
    keywords = [k.arg for k in node.keywords]
    if name not in names or None in keywords or len(set(keywords)) < len(keywords):
        return None  # **kwargs, or a parameter given twice
    given = [k for k in keywords if k is not None]
    positional = _positional(schemas.get(name), len(node.args), given) if node.args else []
    if positional is None:
        return None
    try:
        arguments = {key: _literal(value) for key, value in zip(positional, node.args,
                                                                 strict=True)}
        arguments.update((k.arg, _literal(k.value)) for k in node.keywords if k.arg is not None)
        text = json.dumps(arguments, ensure_ascii=False)
    except (_NotLiteral, RecursionError, TypeError, ValueError):
        return None
    return ToolCall("", name, text)


def _tree(text: str, mode: str) -> ast.AST | None:
    """``text`` parsed, never run; a string a model broke over lines with a real line break
    (``content="line one<newline>line two"``) is read as the one value it means."""
    for attempt in (text, _line_breaks_escaped(text)):
        try:
            with warnings.catch_warnings():  # "\d" in a string warns; it is the model's text
                warnings.simplefilter("ignore")
                return ast.parse(attempt, mode=mode)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None


def _line_breaks_escaped(text: str) -> str:
    """``text`` with each line break inside a one-line string literal written as ``\\n``
    (``\\r``), as Python would have it; what is outside the strings is left as it is."""
    out: list[str] = []
    quote = ""  # the quote the string the scan is in opened with ("" outside strings)
    index = 0
    while index < len(text):
        char = text[index]
        if not quote and char in "'\"":
            quote = text[index:index + 3] if text.startswith(char * 3, index) else char
            out.append(quote)
            index += len(quote)
            continue
        if quote and text.startswith(quote, index):
            out.append(quote)
            index += len(quote)
            quote = ""
            continue
        if quote and char == "\\":
            out.append(text[index:index + 2])
            index += 2
            continue
        one_line = quote in ("'", '"')
        out.append({"\n": "\\n", "\r": "\\r"}.get(char, char) if one_line else char)
        index += 1
    return "".join(out)


def _positional(schema: Any, count: int, keywords: list[str]) -> list[str] | None:
    """The parameters ``count`` positional values stand for, in the order ``schema``
    declares them, when the count leaves no doubt (module docstring); else None."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    required = schema.get("required", []) if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping) or not isinstance(required, list) \
            or not all(isinstance(key, str) for key in required):
        return None  # a schema that is not JSON Schema (a server's, a plugin's) says nothing
    declared = [key for key in properties if isinstance(key, str)]
    leading = declared[:count]
    if count > len(declared) or any(key in leading for key in keywords):
        return None
    if count == len(declared) or (count == len(required) and set(required) == set(leading)):
        return leading
    return None


def literal_value(text: str) -> Any:
    """The value of ``text`` when it is one Python literal (``{'name': 'x', 'on': True}``),
    read as the arguments of a call are; else None. Never runs anything."""
    if len(text) > _MAX_CHARS:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text.strip(), mode="eval")
        value = _literal(tree.body)
        json.dumps(value)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError, _NotLiteral):
        return None
    return value


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        return f"{owner}.{node.attr}" if owner else None
    return None


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and node.value is not Ellipsis and not isinstance(
            node.value, bytes | complex):
        if isinstance(node.value, float) and not math.isfinite(node.value):
            raise _NotLiteral  # 1e999: JSON has no infinity
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAMED_LITERALS:
        return _NAMED_LITERALS[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        keys = [_literal(k) if k is not None else None for k in node.keys]
        if not all(isinstance(k, str) for k in keys):
            raise _NotLiteral
        return {k: _literal(v) for k, v in zip(keys, node.values, strict=True)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _literal(node.operand)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
    raise _NotLiteral


def _without_end_tokens(text: str) -> str:
    text = text.strip()
    for token in _START_TOKENS:
        text = text.removeprefix(token).lstrip()
    return without_end_tokens(text, _END_TOKENS)
