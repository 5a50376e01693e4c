"""Declare tools from typed, documented Python functions.

A tool is a plain function whose signature is the contract with the model:
each parameter's annotation becomes a pydantic field (so arguments are
validated before the function runs; a number parameter refuses true and false),
and the Google-style docstring supplies the descriptions the model reads. Mistakes
in a declaration are raised when the module defining the tool is imported, not when a
model first calls it.

    @tool(heartbeat=True)
    def search_notes(ctx: Context, query: str, page: int = 1) -> list[str]:
        '''Search the notes by keyword.

        Args:
            query: Words to look for.
            page: Which page of results, from 1.
        '''

A first parameter named ``ctx`` receives the runtime context at call time and
is invisible to the model.
"""

from __future__ import annotations

import collections.abc
import copy
import functools
import inspect
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, overload

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PydanticUserError,
    create_model,
)
from pydantic_core import PydanticCustomError

from tiermem.memory.errors import TiermemError

CONTEXT_PARAM = "ctx"
HEARTBEAT_PARAM = "request_heartbeat"
HEARTBEAT_DESCRIPTION = (
    "Set true to get another step after this tool runs (to call another tool or to reply); "
    "when false or omitted, your turn ends as soon as this tool returns"
)

# OpenAI rejects function names outside this pattern, and so do most local servers.
_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SECTION_RE = re.compile(
    r"^(Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Examples?|Notes?|"
    r"Warnings?|See Also|Todo):\s*$"
)
_ARG_RE = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_LIST_ITEM_RE = re.compile(r"^([-*•]|\d+[.)])\s")


class ToolDefinitionError(TiermemError):
    """A function cannot become a tool as written; the message says what to fix."""


class ToolError(TiermemError):
    """An expected failure inside a tool; its message is shown to the model as is."""


@dataclass(frozen=True)
class Tool:
    """A callable the model can invoke, with its validated argument model."""

    name: str
    description: str
    fn: Callable[..., Any]
    args_model: type[BaseModel]
    heartbeat: bool = False
    takes_ctx: bool = False

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-calling declaration of this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters(),
            },
        }

    def parameters(self) -> dict[str, Any]:
        """The JSON schema of the arguments, without pydantic's titles."""
        # Generating it costs about 0.3 ms per tool and the agent sends every
        # schema each turn, so it is built once; callers get their own copy.
        return copy.deepcopy(self._parameters)

    @functools.cached_property
    def _parameters(self) -> dict[str, Any]:
        raw = self.args_model.model_json_schema()
        params: dict[str, Any] = {
            "type": "object",
            "properties": {k: _clean(v) for k, v in raw.get("properties", {}).items()},
        }
        if raw.get("required"):
            params["required"] = list(raw["required"])
        params["additionalProperties"] = False
        if "$defs" in raw:
            params["$defs"] = {k: _clean(v) for k, v in raw["$defs"].items()}
        return params

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validate raw arguments; returns them by parameter name, raising ValidationError."""
        model = self.args_model.model_validate(arguments)
        # Attribute access rather than model_dump keeps nested models and other
        # validated values as the types the function declared.
        return {
            info.alias or field: getattr(model, field)
            for field, info in type(model).model_fields.items()
        }

    def run(self, arguments: dict[str, Any], context: Any = None) -> Any:
        """Call the function with validated arguments; the heartbeat flag is not passed on."""
        kwargs = {
            k: v for k, v in arguments.items() if not (self.heartbeat and k == HEARTBEAT_PARAM)
        }
        if self.takes_ctx:
            kwargs[CONTEXT_PARAM] = context
        return self.fn(**kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Calling the tool directly behaves like the undecorated function.
        return self.fn(*args, **kwargs)


@overload
def tool(fn: Callable[..., Any], *, name: str | None = None, heartbeat: bool = False) -> Tool: ...


@overload
def tool(
    fn: None = None, *, name: str | None = None, heartbeat: bool = False
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None, *, name: str | None = None, heartbeat: bool = False
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a function into a `Tool`; usable as ``@tool`` or ``@tool(heartbeat=True)``."""

    def wrap(f: Callable[..., Any]) -> Tool:
        return make_tool(f, name=name, heartbeat=heartbeat)

    return wrap if fn is None else wrap(fn)


def make_tool(fn: Callable[..., Any], *, name: str | None = None, heartbeat: bool = False) -> Tool:
    """Build a `Tool` from ``fn``, raising `ToolDefinitionError` for any flaw."""
    tool_name: str = name or getattr(fn, "__name__", None) or ""
    where = f"tool {tool_name!r}"
    if not _NAME_RE.match(tool_name):
        raise ToolDefinitionError(f"{where}: a tool name must be 1-64 letters, digits, '_' or '-'")
    if inspect.iscoroutinefunction(fn):
        raise ToolDefinitionError(f"{where}: tools must be plain (synchronous) functions")
    if not fn.__doc__ or not fn.__doc__.strip():
        raise ToolDefinitionError(
            f"{where} has no docstring; add one that says what the tool does, with an "
            f"Args: section describing each parameter"
        )
    description, arg_docs = parse_docstring(fn.__doc__, where=where)
    if not description:
        raise ToolDefinitionError(f"{where}: the docstring needs a summary before its Args:")

    params = list(inspect.signature(fn).parameters.values())
    takes_ctx = bool(params) and params[0].name == CONTEXT_PARAM
    if takes_ctx:
        params = params[1:]
    hints = _resolve_hints(fn, [p.name for p in params], where)

    # Fields get neutral internal names and the real names as aliases, so a
    # parameter may be called anything (``json``, ``copy``, ``_x``) without
    # clashing with BaseModel's own attributes.
    fields: dict[str, Any] = {}
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"{where}: *args and **kwargs cannot be described to a model; "
                f"declare each argument of {p.name!r} as its own parameter"
            )
        if p.kind is p.POSITIONAL_ONLY:
            raise ToolDefinitionError(f"{where}: parameter {p.name!r} cannot be positional-only")
        if p.name == CONTEXT_PARAM:
            raise ToolDefinitionError(f"{where}: 'ctx' is injected only as the first parameter")
        if heartbeat and p.name == HEARTBEAT_PARAM:
            raise ToolDefinitionError(
                f"{where}: {HEARTBEAT_PARAM!r} is added by heartbeat=True; remove the parameter"
            )
        if p.annotation is inspect.Parameter.empty:
            raise ToolDefinitionError(f"{where}: parameter {p.name!r} has no type annotation")
        if p.name not in arg_docs:
            raise ToolDefinitionError(
                f"{where}: parameter {p.name!r} is not described in the docstring's Args: section"
            )
        default = ... if p.default is inspect.Parameter.empty else p.default
        doc = arg_docs[p.name]
        fields[f"a{len(fields)}"] = (_numbers_only(hints[p.name]),
                                     Field(default, alias=p.name, description=doc))

    unknown = sorted(set(arg_docs) - {p.name for p in params})
    if unknown:
        raise ToolDefinitionError(
            f"{where}: the docstring's Args: describes {', '.join(map(repr, unknown))}, "
            f"which the function does not take"
        )
    if heartbeat:
        fields[f"a{len(fields)}"] = (
            bool,
            Field(False, alias=HEARTBEAT_PARAM, description=HEARTBEAT_DESCRIPTION),
        )

    model_name = "".join(part.capitalize() for part in re.split(r"[_-]", tool_name)) + "Args"
    try:
        model = create_model(
            model_name,
            __config__=ConfigDict(extra="forbid", protected_namespaces=()),
            **fields,
        )
        model.model_json_schema()  # surface unsupported types now, not at first use
    except (PydanticUserError, TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"{where}: a parameter type is not supported: {exc}") from exc
    return Tool(tool_name, description, fn, model, heartbeat, takes_ctx)


def parse_docstring(doc: str, *, where: str = "tool") -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its summary and per-argument descriptions.

    The summary is everything before the first section header (``Args:``,
    ``Returns:``, ...). In ``Args:``, each ``name: text`` or ``name (type): text``
    line starts an entry, and more deeply indented lines continue it.
    """
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    i = 0
    while i < len(lines) and not _SECTION_RE.match(lines[i]):
        summary.append(lines[i])
        i += 1
    while i < len(lines):
        header = _SECTION_RE.match(lines[i])
        body_start = i = i + 1
        while i < len(lines) and not (lines[i] and not lines[i][0].isspace()):
            i += 1
        if header and header.group(1) in ("Args", "Arguments", "Parameters", "Params"):
            _parse_args(lines[body_start:i], args, where)
    return _unwrap(summary), args


def _parse_args(body: list[str], out: dict[str, str], where: str) -> None:
    indent: int | None = None
    current: str | None = None
    for line in body:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if indent is None:
            indent = depth
        if depth > indent and current is not None:
            out[current] = f"{out[current]} {line.strip()}".strip()
            continue
        match = _ARG_RE.match(line.strip())
        if depth < indent or not match:
            raise ToolDefinitionError(
                f"{where}: cannot read the Args: line {line.strip()!r}; "
                f"write 'name: description', indenting continuation lines"
            )
        current = match.group(1).lstrip("*")
        if current in out:
            raise ToolDefinitionError(f"{where}: Args: describes {current!r} twice")
        out[current] = match.group(2).strip()
    for arg, text in out.items():
        if not text:
            raise ToolDefinitionError(f"{where}: Args: gives {arg!r} an empty description")


def _unwrap(lines: list[str]) -> str:
    """Join hard-wrapped prose into paragraphs, keeping list items on their own lines."""
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        text = line.strip()
        if not text:
            if paragraphs[-1]:
                paragraphs.append([])
        elif paragraphs[-1] and not _LIST_ITEM_RE.match(text):
            paragraphs[-1][-1] += " " + text
        else:
            paragraphs[-1].append(text)
    return "\n\n".join("\n".join(p) for p in paragraphs if p)


#: What a number parameter says of a true or false sent for it.
_NUMBER_ERRORS = ((int, "int_type", "Input should be a valid integer"),
                  (float, "float_type", "Input should be a valid number"))
_NUMBER_WORDS: dict[Any, str] = {int: "integer", float: "number", str: "string"}


def _numbers_only(hint: Any) -> Any:
    """``hint`` refusing ``true`` and ``false`` where it asks for a number (``int``,
    ``float``, annotated, beside others in a union, or inside a list, a tuple or a dict's
    values), which pydantic would read as 1 and 0: a model that sends ``"page": true`` is told
    so rather than given page 1."""
    origin, members = typing.get_origin(hint), typing.get_args(hint)
    number = members[0] if origin is typing.Annotated else hint
    # Annotated[int | None, Field(ge=0)] as a whole, so that its constraints still reach int.
    either = typing.get_args(number) if origin is typing.Annotated \
        and typing.get_origin(number) in (typing.Union, types.UnionType) else ()
    for kind, error, message in _NUMBER_ERRORS:
        if number is kind or (kind in either and bool not in either):
            if either:  # Annotated[int | str, ...] takes a string too: the message says so
                message = message.replace(_NUMBER_WORDS[kind], " or ".join(
                    _NUMBER_WORDS.get(m, getattr(m, "__name__", "value"))
                    for m in either if m is not type(None)))
            def refuse_bools(value: Any, error: str = error, message: str = message) -> Any:
                if isinstance(value, bool):
                    raise PydanticCustomError(error, message)
                return value

            # After any constraints (Field(ge=1)), which then still reach the schema.
            return typing.Annotated[hint, BeforeValidator(refuse_bools)]
    if origin is typing.Annotated:  # Annotated[list[int], Field(max_length=3)]
        inner = _numbers_only(number)
        return hint if inner is number else typing.Annotated[(inner, *hint.__metadata__)]
    if bool in members or origin not in (typing.Union, types.UnionType, *_CONTAINERS):
        return hint  # a union that takes a boolean too takes true as it is
    numbers = tuple(_numbers_only(m) for m in members)
    if all(n is m for n, m in zip(numbers, members, strict=True)):
        return hint
    return typing.Union[numbers] if origin in (typing.Union, types.UnionType) \
        else origin[numbers]  # noqa: UP007


#: The containers whose items (a dict's values) ``_numbers_only`` reads a number in.
_CONTAINERS = (list, tuple, set, frozenset, dict, collections.abc.Sequence,
               collections.abc.Mapping, collections.abc.Set)


def _resolve_hints(fn: Callable[..., Any], names: list[str], where: str) -> dict[str, Any]:
    # Resolve only the model-visible parameters, so that ``ctx`` and the return
    # type may name classes imported under TYPE_CHECKING.
    target = inspect.unwrap(fn)
    raw = getattr(target, "__annotations__", {})
    shim = types.SimpleNamespace(__annotations__={k: raw[k] for k in names if k in raw})
    try:
        return typing.get_type_hints(
            shim, globalns=getattr(target, "__globals__", {}), include_extras=True
        )
    except Exception as exc:
        raise ToolDefinitionError(f"{where}: cannot resolve a type annotation: {exc}") from exc


_SCHEMA_MAPS = ("properties", "$defs", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE = ("items", "additionalProperties", "not")


def _clean(schema: Any) -> Any:
    """Drop pydantic's titles and fold ``anyOf`` of bare types into a type list."""
    if not isinstance(schema, dict):
        return schema
    out = {k: copy.deepcopy(v) for k, v in schema.items() if k != "title"}
    for key in _SCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {k: _clean(v) for k, v in out[key].items()}
    for key in _SCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [_clean(v) for v in out[key]]
    for key in _SCHEMA_ONE:
        if isinstance(out.get(key), dict):
            out[key] = _clean(out[key])
    variants = out.get("anyOf")
    if isinstance(variants, list) and all(
        set(v) == {"type"} and isinstance(v["type"], str) for v in variants
    ):
        del out["anyOf"]
        out = {"type": [v["type"] for v in variants], **out}
    return out
