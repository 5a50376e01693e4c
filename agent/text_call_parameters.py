"""Tool calls written as Qwen3-Coder writes them (agent/text_call_markup.py).

Qwen3-Coder's chat template has it give each argument in a tag of its own rather than as
JSON, inside the Hermes tags or, when a server took those out, without them::

    <tool_call>
    <function=core_memory_append>
    <parameter=content>
    Allergic to peanuts
    </parameter>
    </function>
    </tool_call>

A value is raw text, not JSON: the one line break the template puts after the opening tag
and before the closing one is not part of it, any other text is, a ``</parameter>`` too
when what follows it is no next parameter nor the call's end (code that writes the tag).
The model may leave out a ``</parameter>`` (after a long value, mostly): the value then
ends where the next parameter's tag begins a line, even when that parameter is closed, or
at the call's ``</function>``; a tag inside a line is the value's own text. The tool's
schema, not the text, says what type a value is, and the tools check their arguments against it, so
``<parameter=page>2</parameter>`` gives the text ``"2"`` for the tools to read as a number.
The template writes a list or an object as JSON, which a tool would refuse as text: for a
parameter whose schema takes no text, a value that reads as JSON is that value
(``<parameter=tags>["drinks"]</parameter>`` is the list), and Python's ``None``, ``True``
and ``False`` are theirs. For a parameter that may be null, ``None`` (or ``null``) is null,
even where the schema takes text too (``start_date``), as the template writes a null so;
for one that takes neither null nor text (``request_heartbeat``), it is a value left unset,
and the parameter is left out.
JSON has no infinity: ``1e400`` or ``NaN`` stays the text, so the arguments stay JSON a
server can read back. A value that is only an ellipsis shows the form: no call.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from tiermem.agent.llm import ToolCall
from tiermem.agent.text_call_objects import offered_name

__all__ = ["function_with_parameters", "parameters_call"]

_FUNCTION = re.compile(r"\s*<function=([\w.\-]{1,200})>")
_FUNCTION_CLOSE = "</function>"
#: A parameter: its value ends at the first ``</parameter>`` that the next parameter, the
#: call's end or the end of the text follows; one inside it is the value's own text.
_PARAMETER = re.compile(r"\s*<parameter=([\w.\-]{1,200})>(.*?)</parameter>"
                        r"(?=\s*(?:<parameter=|</function>|\Z))", re.DOTALL)
#: The next parameter's tag, which the template begins a line with: one inside a line is
#: the value's own text (code that writes the tag).
_NEXT = r"\n[ \t]*<parameter="
#: A parameter whose ``</parameter>`` the model left out: its value runs to the next
#: parameter's tag, or to the ``</function>`` that ends the call.
_UNCLOSED = re.compile(rf"\s*<parameter=([\w.\-]{{1,200}})>(.*?)(?={_NEXT}|</function>\s*\Z)",
                       re.DOTALL)
_OPENING = "<parameter="
#: A value left out of a call that shows the form.
_PLACEHOLDERS = ("...", "\u2026")
#: How a null is written: as the template writes Python's None, and as JSON.
_NULLS = ("None", "null")
#: How the template writes Python's own constants, which are no JSON.
_PYTHON_CONSTANTS = {"None": None, "True": True, "False": False}


def function_with_parameters(body: str, *, unfinished: bool,
                             schemas: Mapping[str, Any] | None = None) -> list[ToolCall] | None:
    """The call when ``body`` is ``<function=NAME>`` with its parameters' tags, then
    ``</function>`` (which a stop token may have taken); else None."""
    function = _FUNCTION.match(body)
    if function is None:
        return None
    return parameters_call(function.group(1), body[function.end():], unfinished=unfinished,
                           schemas=schemas)


def parameters_call(name: str, body: str, *, unfinished: bool,
                    schemas: Mapping[str, Any] | None = None) -> list[ToolCall] | None:
    """The call to ``name`` when ``body`` is nothing but ``<parameter=KEY>value</parameter>``
    tags (at least one), then perhaps ``</function>``; else None. Cut off (``unfinished``)
    inside them, it is a call whose arguments are the unfinished text, not valid JSON.
    ``schemas`` maps an offered tool's name to its parameters' JSON schema, which says
    which values are JSON rather than text (module docstring)."""
    schema = (schemas or {}).get(offered_name(name, schemas or {}))
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    arguments: dict[str, Any] = {}
    given: set[str] = set()
    position = 0
    while (parameter := _parameter(body, position)) is not None:
        key = parameter.group(1)
        if key in given:
            return None  # given twice: which one was meant is unclear
        given.add(key)
        declared = properties.get(key) if isinstance(properties, Mapping) else None
        value = _value(parameter.group(2))
        if value.strip() in _PLACEHOLDERS:
            return None  # the form shown ("<parameter=content>...</parameter>"), no call
        if not _left_out(value, declared):
            arguments[key] = _typed(value, declared)
        position = parameter.end()
    rest = body[position:].strip()
    if given and rest in ("", _FUNCTION_CLOSE):
        return [ToolCall("", name, json.dumps(arguments, ensure_ascii=False))]
    if unfinished and body.lstrip().startswith(_OPENING):
        return [ToolCall("", name, body.strip())]
    return None


def _parameter(body: str, position: int) -> re.Match[str] | None:
    """The parameter's tag at ``position`` and its value, which ends at ``</parameter>``, or,
    when none follows (the model left it out), where the next parameter or the call's end
    begins. A value holding a tag of its own inside a line (a file that shows the format) is
    not cut; a line that begins with one is the next parameter, even when a later
    ``</parameter>`` closes that one."""
    closed = _PARAMETER.match(body, position)
    if closed and not re.search(_NEXT, closed.group(2)):
        return closed
    unclosed = _UNCLOSED.match(body, position)
    # A "</parameter>" in it ends it, with text after it that is no parameter: no call.
    return unclosed if unclosed and "</parameter>" not in unclosed.group(2) else None


def _value(text: str) -> str:
    """The value in a parameter's tags, without the one line break on either side of it."""
    text = text[2:] if text.startswith("\r\n") else text[1:] if text.startswith("\n") else text
    return text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith("\n") else text


def _left_out(text: str, schema: Any) -> bool:
    """Whether ``text`` is a null for a parameter of ``schema`` that may be neither null nor
    text (``<parameter=request_heartbeat>None``): the template writes a value the model left
    unset so, and the parameter's default is meant."""
    return text.strip() in _NULLS and isinstance(schema, Mapping) \
        and not _takes(schema, "null") and not _takes(schema, "string")


def _typed(text: str, schema: Any) -> Any:
    """``text`` as the value a parameter of ``schema`` takes: for one that takes no text, what
    the text reads as in JSON (or as Python's None, True or False); else the text."""
    if not isinstance(schema, Mapping):
        return text
    if text.strip() in _NULLS and _takes(schema, "null"):
        return None  # the template writes a null as Python's None
    if _takes(schema, "string"):
        return text
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError):
        return _PYTHON_CONSTANTS.get(text.strip(), text)


def _no_constant(text: str) -> float:
    raise ValueError(f"{text} is no JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is no finite number")
    return value


def _takes(schema: Mapping[str, Any], type_name: str, depth: int = 0) -> bool:
    """Whether a value of ``schema`` may be of JSON type ``type_name``; text may be when the
    schema says nothing of its type."""
    kind = schema.get("type")
    branches = [b for key in ("anyOf", "oneOf") for b in schema.get(key) or []
                if isinstance(b, Mapping)]
    if kind is None and not branches:
        return type_name == "string"
    if kind == type_name or (isinstance(kind, list) and type_name in kind):
        return True
    return depth < 8 and any(_takes(b, type_name, depth + 1) for b in branches)
