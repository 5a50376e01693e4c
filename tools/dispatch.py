"""Run a model's tool call and turn every outcome into text for the model.

The model makes mistakes: it names tools that do not exist, sends broken JSON,
forgets required fields, nests arrays thousands deep, sends text that is not
valid Unicode. None of these raise; each comes back as a `ToolResult` whose
content starts with ``Error:`` and says what to send instead, so the model can
correct itself on the next step. ``dispatch`` never raises an ``Exception``:
anything unforeseen becomes an ``Error:`` result of kind ``crashed`` too. A
``request_heartbeat`` sent to a tool that takes none (``send_message``, which ends
the turn) is ignored, not refused: the call runs and asks for no heartbeat. A null for an
optional parameter that takes none (``"page": null``) leaves it unset: its default is used.
"""

from __future__ import annotations

import difflib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import pydantic_core
from pydantic import BaseModel, ValidationError

from tiermem.memory.errors import TiermemError
from tiermem.tools.argument_advice import example_arguments, explain_invalid, shown_value
from tiermem.tools.declare import HEARTBEAT_PARAM, Tool, ToolDefinitionError, ToolError
from tiermem.tools.safe_text import lone_surrogate_at, safe_text

__all__ = ["ERROR_PREFIX", "MAX_ARGUMENT_BYTES", "ErrorKind", "ToolError", "ToolResult", "Toolbox"]

log = logging.getLogger(__name__)

MAX_ARGUMENT_BYTES = 1_000_000
#: How the result of a call that failed begins.
ERROR_PREFIX = "Error: "
DEFAULT_MAX_RESULT_CHARS = 20_000
#: Deeper arguments are refused before validation: no tool needs them, and walking
#: them (pydantic, json.dumps, repr) can exhaust Python's recursion limit.
MAX_ARGUMENT_NESTING = 32

ErrorKind = Literal[
    "unknown_tool", "too_large", "invalid_json", "not_an_object", "invalid_arguments",
    "tool_error", "crashed",
]  # fmt: skip


@dataclass
class ToolResult:
    """The outcome of one tool call.

    ``content`` is what goes back to the model as the tool message. ``heartbeat``
    is whether the model asked for control back; a runtime usually also gives
    control back when ``ok`` is false, so the model can retry. ``from_text``
    is set by the caller for a call the model wrote as text rather than as a
    tool call, so that it can be shown as such.
    """

    name: str
    call_id: str
    content: str
    ok: bool
    heartbeat: bool = False
    value: Any = None
    error: str | None = None
    error_kind: ErrorKind | None = None
    exception: BaseException | None = field(default=None, repr=False)
    from_text: bool = False


class Toolbox:
    """The tools one agent may call, by name."""

    def __init__(
        self, tools: Iterable[Tool], *, max_result_chars: int = DEFAULT_MAX_RESULT_CHARS
    ) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            if t.name in self._tools:
                raise ToolDefinitionError(f"two tools are named {t.name!r}; names must be unique")
            self._tools[t.name] = t
        if max_result_chars < 1:
            raise ValueError("max_result_chars must be at least 1")
        self.max_result_chars = max_result_chars

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def schemas(self) -> list[dict[str, Any]]:
        return [t.schema() for t in self._tools.values()]

    def dispatch(
        self,
        name: str,
        arguments: str | dict[str, Any],
        *,
        call_id: str = "",
        context: Any = None,
    ) -> ToolResult:
        """Validate and run one call. Never raises for the model's mistakes or a tool's
        failure; raises TypeError for the caller's: a tool that takes a context (the
        memory tools take a ``ToolContext``) dispatched without one."""
        try:
            checked = self._checked(name, arguments, call_id)
        except Exception as exc:  # the contract above: nothing the model sends may raise
            return self._crashed(name, call_id, exc)
        if isinstance(checked, ToolResult):
            return checked
        if checked[0].takes_ctx and context is None:
            raise TypeError(f"the tool {name!r} needs context=...: pass what it works on "
                            f"(for the memory tools, ToolContext(memory, turn) of "
                            f"tiermem.tools.memory_tools)")
        try:
            return self._run(checked, name, call_id, context)
        except Exception as exc:
            return self._crashed(name, call_id, exc)

    def check(self, name: str, arguments: str | dict[str, Any]) -> ToolResult | None:
        """The error ``dispatch`` would answer for a call it refuses before running it (an
        unknown tool, arguments that are not a JSON object or do not fit the schema), or
        None for a call it would run. Runs nothing; never raises."""
        try:
            checked = self._checked(name, arguments, "")
        except Exception as exc:  # as in dispatch: nothing the model sends may raise
            return self._crashed(name, "", exc)
        return checked if isinstance(checked, ToolResult) else None

    def _crashed(self, name: str, call_id: str, exc: Exception) -> ToolResult:
        log.debug("dispatching %r raised", name, exc_info=True)
        message = (f"the call to {shown_value(name)} could not be processed "
                   f"({type(exc).__name__}: {shown_value(str(exc), 200)}); check its name "
                   f"and arguments and call it again")
        return ToolResult(safe_text(str(name)), call_id, ERROR_PREFIX + message, False,
                          error=message, error_kind="crashed", exception=exc)

    def _failed(self, name: str, call_id: str, kind: ErrorKind, message: str,
                **extra: Any) -> ToolResult:
        # A tool's message may quote anything, a lone surrogate included; what goes
        # back to the model must be storable and sendable (tools/safe_text.py).
        message = safe_text(message)
        content = ERROR_PREFIX + message
        # Only text a tool produced can be arbitrarily long; the framework's
        # own messages are bounded and must reach the model whole.
        if kind in ("tool_error", "crashed"):
            content = self._truncate(content, tool_=None, args=None)
        return ToolResult(
            safe_text(name), call_id, content, False, error=message, error_kind=kind, **extra
        )

    def _checked(
        self, name: str, arguments: str | dict[str, Any], call_id: str
    ) -> ToolResult | tuple[Tool, dict[str, Any], bool]:
        """The tool, its validated arguments and whether they ask for a heartbeat; or the
        failed result when the call cannot run."""
        t = self._tools.get(name)
        if t is None:
            close = difflib.get_close_matches(str(name), self.names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            available = ", ".join(self.names) or "(none)"
            return self._failed(
                name, call_id, "unknown_tool",
                f"there is no tool named {name!r}; available tools: {available}{hint}",
            )

        raw = _parse_arguments(t, arguments)
        if isinstance(raw, tuple):
            return self._failed(name, call_id, *raw)
        if not t.heartbeat and HEARTBEAT_PARAM in raw and not _declares(t, HEARTBEAT_PARAM):
            # Models told that any call may ask for a heartbeat send one to a tool that
            # ends the turn (send_message) too; refused, the reply never reached the user.
            # A tool that declares a parameter of that name itself is given it.
            raw = {k: v for k, v in raw.items() if k != HEARTBEAT_PARAM}
        heartbeat = t.heartbeat and raw.get(HEARTBEAT_PARAM) is True
        if None in raw.values():
            raw = _without_unset(t, raw)
        unusable = _unusable_part(t, raw)
        if unusable is not None:
            return self._failed(name, call_id, "invalid_arguments", unusable, heartbeat=heartbeat)

        try:
            args = t.validate(raw)
        except ValidationError as exc:
            return self._failed(name, call_id, "invalid_arguments", explain_invalid(t, exc),
                                heartbeat=heartbeat)
        return t, args, t.heartbeat and bool(args.get(HEARTBEAT_PARAM))

    def _run(self, checked: tuple[Tool, dict[str, Any], bool], name: str, call_id: str,
             context: Any) -> ToolResult:
        t, args, heartbeat = checked
        try:
            value = t.run(args, context)
        except TiermemError as exc:  # ToolError included: an expected, user-facing failure
            return self._failed(name, call_id, "tool_error", str(exc) or type(exc).__name__,
                                heartbeat=heartbeat)
        except Exception as exc:
            log.debug("tool %s raised", name, exc_info=True)
            message = f"{name} failed: {type(exc).__name__}: {exc}"
            return self._failed(name, call_id, "crashed", message, heartbeat=heartbeat,
                                exception=exc)

        content = self._truncate(safe_text(render(value)), tool_=t, args=args)
        return ToolResult(name, call_id, content, True, heartbeat=heartbeat, value=value)

    def _truncate(self, content: str, *, tool_: Tool | None, args: dict[str, Any] | None) -> str:
        limit = self.max_result_chars
        if len(content) <= limit:
            return content
        cut = len(content) - limit
        if tool_ is not None and args is not None and "page" in args:
            page = args["page"] if isinstance(args["page"], int) else 1
            how = f"call {tool_.name} again with page={page + 1} for more"
        else:
            how = "ask for less (a narrower query or a smaller range) to see the rest"
        return (
            f"{content[:limit]}\n[truncated: showing {limit} of {len(content)} characters, "
            f"{cut} cut; {how}]"
        )


def _declares(t: Tool, parameter: str) -> bool:
    """Whether ``t``'s function takes ``parameter`` (by the name the model sends)."""
    return any((info.alias or field) == parameter
               for field, info in t.args_model.model_fields.items())


def render(value: Any) -> str:
    """What the model sees for a tool's return value."""
    if value is None:
        return "OK"
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json().translate(_JSON_LINE_BREAKS)
    # pydantic_core writes compact UTF-8 JSON and knows dataclasses, datetimes and models.
    return pydantic_core.to_json(value, fallback=str).decode().translate(_JSON_LINE_BREAKS)


#: The line breaks that JSON may leave raw inside a string (it escapes those below U+0020).
#: Escaped, they keep their value but cannot start a line in the model's view of the result.
_JSON_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def _parse_arguments(
    t: Tool, arguments: str | dict[str, Any]
) -> dict[str, Any] | tuple[ErrorKind, str]:
    """The arguments as a dict, or the error kind and message explaining why not."""
    if isinstance(arguments, dict):
        return arguments
    if not isinstance(arguments, str):
        return "not_an_object", _not_object(t, arguments)
    # Characters never outnumber UTF-8 bytes, so the cheap check settles most cases.
    if (
        len(arguments) > MAX_ARGUMENT_BYTES
        or len(arguments.encode(errors="replace")) > MAX_ARGUMENT_BYTES
    ):
        return (
            "too_large",
            f"the arguments of {t.name} are over the 1 MB limit ({MAX_ARGUMENT_BYTES} bytes "
            f"of JSON); send less text in one call",
        )
    if not arguments.strip():
        return {}
    try:
        parsed = json.loads(arguments)
        # Some models encode the object twice, sending a JSON string of JSON.
        if isinstance(parsed, str) and parsed.lstrip().startswith("{"):
            parsed = json.loads(parsed)
    except RecursionError:
        return (
            "invalid_json",
            f"the arguments of {t.name} are nested too deeply to read (the limit is "
            f"{MAX_ARGUMENT_NESTING} levels); send a flat JSON object like "
            f"{example_arguments(t)}",
        )
    except ValueError as exc:  # JSONDecodeError, and numbers of over 4300 digits
        return (
            "invalid_json",
            f"the arguments of {t.name} are not valid JSON ({shown_value(str(exc), 200)}); "
            f"send a JSON object like {example_arguments(t)}",
        )
    if not isinstance(parsed, dict):
        return "not_an_object", _not_object(t, parsed)
    return parsed


def _without_unset(t: Tool, raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` without a null for an optional parameter that takes none
    (``"request_heartbeat": null``, ``"page": null``): models write a value they leave unset
    so, meaning the default. A required parameter's null is still refused."""
    params = t.parameters()
    properties, required = params.get("properties", {}), params.get("required", [])
    return {key: value for key, value in raw.items()
            if value is not None or key in required or key not in properties
            or _takes_null(properties[key])}


def _takes_null(schema: Any) -> bool:
    """Whether a JSON schema takes null; a schema this does not read is taken to."""
    if not isinstance(schema, dict):
        return True
    if "anyOf" in schema or "oneOf" in schema:
        return any(_takes_null(s) for s in [*schema.get("anyOf", []), *schema.get("oneOf", [])])
    kind = schema.get("type")
    if isinstance(kind, str | list):
        return "null" in ([kind] if isinstance(kind, str) else kind)
    return None in schema["enum"] if isinstance(schema.get("enum"), list) else True


def _unusable_part(t: Tool, arguments: dict[str, Any]) -> str | None:
    """Why the arguments cannot be validated safely (too deep, not valid Unicode), or None.

    Walks the value with an explicit stack, so the check itself cannot recurse too deeply.
    """
    stack: list[tuple[Any, str, int]] = [(arguments, "", 1)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_ARGUMENT_NESTING:
            return (f"the arguments of {t.name} are nested more than {MAX_ARGUMENT_NESTING} "
                    f"levels deep (at {path[:80] or 'the top'}); send a flat JSON object like "
                    f"{example_arguments(t)}")
        if isinstance(value, dict):
            for key, item in value.items():
                key_text = key if isinstance(key, str) else str(key)
                at = lone_surrogate_at(key_text)
                if at is not None:
                    return _not_unicode(t, f"the name of a field under {path[:80] or 'the top'}",
                                        at)
                stack.append((item, f"{path}.{key_text}".lstrip("."), depth + 1))
        elif isinstance(value, list | tuple):
            stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value))
        elif isinstance(value, str):
            at = lone_surrogate_at(value)
            if at is not None:
                return _not_unicode(t, repr(path[:80] or "the arguments"), at)
    return None


def _not_unicode(t: Tool, where: str, at: int) -> str:
    return (f"the arguments of {t.name} hold text that is not valid Unicode: {where} has a lone "
            f"surrogate (an unpaired \\ud800-\\udfff escape) at character {at}; send the text "
            f"as plain UTF-8, or leave that character out")


def _not_object(t: Tool, value: Any) -> str:
    kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )
    return (
        f"the arguments of {t.name} must be a JSON object, not {kind}; "
        f"send a JSON object like {example_arguments(t)}"
    )
