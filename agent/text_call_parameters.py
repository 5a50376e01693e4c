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
and before the closing one is not part of it, any other text is. The tool's schema, not
the text, says what type a value is, and the tools check their arguments against it, so
``<parameter=page>2</parameter>`` gives the text ``"2"`` for the tools to read as a number.
"""

from __future__ import annotations

import json
import re

from tiermem.agent.llm import ToolCall

__all__ = ["function_with_parameters", "parameters_call"]

_FUNCTION = re.compile(r"\s*<function=([\w.\-]{1,200})>")
_FUNCTION_CLOSE = "</function>"
_PARAMETER = re.compile(r"\s*<parameter=([\w.\-]{1,200})>(.*?)</parameter>", re.DOTALL)
_OPENING = "<parameter="


def function_with_parameters(body: str, *, unfinished: bool) -> list[ToolCall] | None:
    """The call when ``body`` is ``<function=NAME>`` with its parameters' tags, then
    ``</function>`` (which a stop token may have taken); else None."""
    function = _FUNCTION.match(body)
    if function is None:
        return None
    return parameters_call(function.group(1), body[function.end():], unfinished=unfinished)


def parameters_call(name: str, body: str, *, unfinished: bool) -> list[ToolCall] | None:
    """The call to ``name`` when ``body`` is nothing but ``<parameter=KEY>value</parameter>``
    tags (at least one), then perhaps ``</function>``; else None. Cut off (``unfinished``)
    inside them, it is a call whose arguments are the unfinished text, not valid JSON."""
    arguments: dict[str, str] = {}
    position = 0
    while (parameter := _PARAMETER.match(body, position)) is not None:
        if parameter.group(1) in arguments:
            return None  # given twice: which one was meant is unclear
        arguments[parameter.group(1)] = _value(parameter.group(2))
        position = parameter.end()
    rest = body[position:].strip()
    if arguments and rest in ("", _FUNCTION_CLOSE):
        return [ToolCall("", name, json.dumps(arguments, ensure_ascii=False))]
    if unfinished and body.lstrip().startswith(_OPENING):
        return [ToolCall("", name, body.strip())]
    return None


def _value(text: str) -> str:
    """The value in a parameter's tags, without the one line break on either side of it."""
    text = text[2:] if text.startswith("\r\n") else text[1:] if text.startswith("\n") else text
    return text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith("\n") else text
