"""What a tool's error tells the model to send instead: an example of the arguments its
schema asks for, and each invalid, missing or unexpected field named with what it should be.
tools/dispatch.py puts these into its ``Error:`` results."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from tiermem.tools.declare import Tool
from tiermem.tools.safe_text import safe_text


def example_arguments(t: Tool) -> str:
    """A JSON object with a placeholder for each required parameter of ``t``."""
    params = t.parameters()
    props = params.get("properties", {})
    example = {k: _placeholder(props[k]) for k in params.get("required", [])}
    return json.dumps(example, ensure_ascii=False)


def _placeholder(schema: dict[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return _placeholder(next((s for s in schema["anyOf"] if s.get("type") != "null"), {}))
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "integer":
        return schema.get("minimum", 1)
    if kind == "number":
        return schema.get("minimum", 1.0)
    if kind == "boolean":
        return True
    if kind == "array":
        return [_placeholder(schema.get("items", {}))]
    if kind == "object":
        return {}
    return "..."


#: How pydantic labels a type that a validator wraps, in a union's member: the validator's
#: name, then the type's own label (``function-before[refuse_bools(), int]``, a number
#: refusing true, alone or as a list's items: ``list[function-before[refuse_bools(), int]]``).
_WRAPPER = re.compile(r"function-(?:before|after|wrap)\[\w*\(\), ")


def _member(part: str) -> str:
    """A place in the arguments as the model knows it: a union's member by its type, not by
    the validators that wrap it (``page.int``, ``ids.list[int]``)."""
    while wrapper := _WRAPPER.search(part):
        depth, end = 1, wrapper.end()
        while depth and end < len(part):  # to the bracket that closes the wrapper
            depth += {"[": 1, "]": -1}.get(part[end], 0)
            end += 1
        if depth:
            return part
        part = part[:wrapper.start()] + part[wrapper.end():end - 1] + part[end:]
    return part


# A list of 10,000 wrong items would otherwise yield 10,000 lines of error.
_MAX_LISTED = 10


def explain_invalid(t: Tool, exc: ValidationError) -> str:
    """List every bad, missing and unexpected field, in terms the model can act on."""
    props = t.parameters().get("properties", {})
    bad, missing, extra = [], [], []
    for err in exc.errors():
        loc = "".join(f"[{p}]" if isinstance(p, int) else f".{_member(p)}"
                      for p in err["loc"]).lstrip(".")
        if err["type"] == "missing" and len(err["loc"]) == 1:
            missing.append(f"{loc!r} ({_describe(props.get(loc, {}))})")
        elif err["type"] == "extra_forbidden" and len(err["loc"]) == 1:
            extra.append(repr(loc))
        else:
            msg = err["msg"].replace("Input should", "should")
            bad.append(f"- {loc or 'arguments'}: {msg}; got {shown_value(err['input'])}")
    if len(bad) > _MAX_LISTED:
        bad[_MAX_LISTED:] = [f"- ... and {len(bad) - _MAX_LISTED} more invalid values"]
    if len(extra) > _MAX_LISTED:
        extra[_MAX_LISTED:] = [f"and {len(extra) - _MAX_LISTED} more"]
    lines = [f"the arguments of {t.name} are invalid:", *bad]
    if missing:
        lines.append(f"- missing required field(s): {', '.join(missing)}")
    if extra:
        lines.append(
            f"- unexpected field(s): {', '.join(extra)}; "
            f"{t.name} takes only: {', '.join(props) or 'no arguments'}"
        )
    lines.append(f"Call {t.name} again with corrected arguments.")
    return "\n".join(lines)


def _describe(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    kind = schema.get("type", "value")
    if kind == "array":
        return f"array of {_describe(schema.get('items', {}))}"
    return " or ".join(kind) if isinstance(kind, list) else str(kind)


def shown_value(value: Any, limit: int = 80) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        try:
            text = repr(value)
        except (ValueError, RecursionError):  # repr of an int of over 4300 digits
            text = f"a {type(value).__name__} too large to show"
    text = safe_text(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."
