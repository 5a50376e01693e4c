"""The generic tool layer: declaring tools from functions, and dispatching model calls."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field

from tiermem.memory.errors import InvalidInputError
from tiermem.tools.declare import (
    HEARTBEAT_DESCRIPTION,
    Tool,
    ToolDefinitionError,
    ToolError,
    parse_docstring,
    tool,
)
from tiermem.tools.dispatch import MAX_ARGUMENT_BYTES, Toolbox, render


def search_notes(
    query: str,
    limit: int = 5,
    kind: Literal["note", "todo"] = "note",
    tags: list[str] | None = None,
    since: Optional[str] = None,  # noqa: UP045 - the Optional spelling must work too
) -> list[str]:
    """Search the notes for a keyword.

    Results come newest
    first.

    Args:
        query: Words to look for;
            matched case-insensitively.
        limit (int): How many results to return.
        kind: Which notes to search.
        tags: Only notes with all of these tags.
        since: An ISO date; only notes written after it.

    Returns:
        The matching notes.
    """
    return [query] * limit


EXPECTED_SEARCH_SCHEMA = {
    "type": "function",
    "function": {
        "name": "search_notes",
        "description": "Search the notes for a keyword.\n\nResults come newest first.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "Words to look for; matched case-insensitively.",
                },
                "limit": {
                    "type": "integer",
                    "default": 5,
                    "description": "How many results to return.",
                },
                "kind": {
                    "type": "string",
                    "enum": ["note", "todo"],
                    "default": "note",
                    "description": "Which notes to search.",
                },
                "tags": {
                    "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
                    "default": None,
                    "description": "Only notes with all of these tags.",
                },
                "since": {
                    "type": ["string", "null"],
                    "default": None,
                    "description": "An ISO date; only notes written after it.",
                },
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
}


@dataclass
class Ctx:
    notes: list[str]


@tool(heartbeat=True)
def add_note(ctx: Ctx, text: str, page: Annotated[int, Field(ge=1)] = 1) -> dict[str, Any]:
    """Add a note.

    Args:
        text: The note.
        page: Which page to file it on.
    """
    if text == "boom":
        raise RuntimeError("disk on fire")
    if text == "full":
        raise ToolError("the notebook is full; delete a note first")
    if text == "bad":
        raise InvalidInputError("notes cannot be 'bad'")
    ctx.notes.append(text)
    return {"count": len(ctx.notes), "page": page, "text": text}


@tool
def echo(text: str, page: int = 1) -> str:
    """Return the text unchanged.

    Args:
        text: What to echo.
        page: Which page of the echo.
    """
    return text


@tool(name="ping")
def _ping() -> None:
    """Check that the tools work."""


@pytest.fixture
def box() -> Toolbox:
    return Toolbox([tool(search_notes), add_note, echo, _ping], max_result_chars=50)


# --- declaration -----------------------------------------------------------------


def test_schema_is_exact_openai_function_declaration() -> None:
    assert tool(search_notes).schema() == EXPECTED_SEARCH_SCHEMA
    assert "title" not in json.dumps(tool(search_notes).schema())


def test_annotated_constraints_and_heartbeat_reach_the_schema() -> None:
    params = add_note.schema()["function"]["parameters"]
    assert params["properties"]["page"] == {
        "type": "integer",
        "minimum": 1,
        "default": 1,
        "description": "Which page to file it on.",
    }
    assert params["properties"]["request_heartbeat"] == {
        "type": "boolean",
        "default": False,
        "description": HEARTBEAT_DESCRIPTION,
    }
    assert "ctx" not in params["properties"]
    assert params["required"] == ["text"]
    assert add_note.takes_ctx and add_note.heartbeat


def test_no_argument_tool_schema_and_name_override() -> None:
    assert _ping.name == "ping"
    assert _ping.schema()["function"] == {
        "name": "ping",
        "description": "Check that the tools work.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    }


def test_parameter_names_that_clash_with_basemodel_still_work() -> None:
    @tool
    def fetch(json: str, copy: int = 2) -> str:
        """Fetch.

        Args:
            json: A name that BaseModel also uses.
            copy: Another one.
        """
        return json * copy

    assert list(fetch.schema()["function"]["parameters"]["properties"]) == ["json", "copy"]
    assert Toolbox([fetch]).dispatch("fetch", '{"json": "ab"}').content == "abab"


def test_docstring_parsing_keeps_lists_and_drops_later_sections() -> None:
    summary, args = parse_docstring(
        """Do things:
        - first
        - second

        Args:
            a (int): Alpha
                continued here.
            b: Beta.

        Raises:
            ValueError: never.
        """
    )
    assert summary == "Do things:\n- first\n- second"
    assert args == {"a": "Alpha continued here.", "b": "Beta."}


def _undocumented_param(x: int, y: int) -> int:
    """Add.

    Args:
        x: The first.
    """
    return x + y


def _extra_doc(x: int) -> int:
    """Double.

    Args:
        x: The number.
        z: Not a parameter.
    """
    return 2 * x


def _no_annotation(x) -> int:  # type: ignore[no-untyped-def]
    """Double.

    Args:
        x: The number.
    """
    return 2 * x


def _no_docstring(x: int) -> int:
    return x


def _var_args(*xs: int) -> int:
    """Sum.

    Args:
        xs: Numbers.
    """
    return sum(xs)


def _var_kwargs(**kw: int) -> int:
    """Count.

    Args:
        kw: Anything.
    """
    return len(kw)


def _ctx_not_first(x: int, ctx: Ctx) -> int:
    """Use ctx wrongly.

    Args:
        x: A number.
        ctx: The context.
    """
    return x


def _clashing_heartbeat(request_heartbeat: bool) -> None:
    """Clash.

    Args:
        request_heartbeat: Mine.
    """


def _only_args() -> None:
    """Args:
    x: nothing.
    """


@pytest.mark.parametrize(
    ("fn", "heartbeat", "fragment"),
    [
        (_undocumented_param, False, "parameter 'y' is not described"),
        (_extra_doc, False, "describes 'z'"),
        (_no_annotation, False, "parameter 'x' has no type annotation"),
        (_no_docstring, False, "has no docstring"),
        (_var_args, False, "*args and **kwargs"),
        (_var_kwargs, False, "*args and **kwargs"),
        (_ctx_not_first, False, "'ctx' is injected only as the first parameter"),
        (_clashing_heartbeat, True, "'request_heartbeat' is added by heartbeat=True"),
        (_only_args, False, "needs a summary"),
    ],
)
def test_definition_errors(fn: Any, heartbeat: bool, fragment: str) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        tool(fn, heartbeat=heartbeat)
    assert fragment in str(info.value)
    assert fn.__name__ in str(info.value)


def test_invalid_tool_name_and_duplicate_names_are_rejected() -> None:
    with pytest.raises(ToolDefinitionError, match="1-64 letters"):
        tool(search_notes, name="search notes")
    with pytest.raises(ToolDefinitionError, match="two tools are named 'echo'"):
        Toolbox([echo, echo])


def test_decorated_tool_is_still_callable_directly() -> None:
    assert isinstance(echo, Tool)
    assert echo("hi") == "hi"


# --- dispatch: success -------------------------------------------------------------


def test_ctx_injected_and_heartbeat_stripped_and_reported(box: Toolbox) -> None:
    ctx = Ctx(notes=[])
    result = box.dispatch(
        "add_note",
        '{"text": "milk", "request_heartbeat": true}',
        call_id="call_1",
        context=ctx,
    )
    assert result.ok and result.heartbeat
    assert result.call_id == "call_1"
    assert ctx.notes == ["milk"]
    assert result.value == {"count": 1, "page": 1, "text": "milk"}
    assert result.content == '{"count":1,"page":1,"text":"milk"}'
    assert result.error is None

    quiet = box.dispatch("add_note", {"text": "eggs"}, context=ctx)
    assert quiet.ok and not quiet.heartbeat
    assert ctx.notes == ["milk", "eggs"]


def test_empty_string_arguments_mean_no_arguments(box: Toolbox) -> None:
    result = box.dispatch("ping", "")
    assert (result.ok, result.content, result.value) == (True, "OK", None)
    assert box.dispatch("ping", "  \n").content == "OK"


def test_lax_coercion_and_double_encoded_json(box: Toolbox) -> None:
    result = box.dispatch("search_notes", json.dumps(json.dumps({"query": "x", "limit": "2"})))
    assert result.ok
    assert result.value == ["x", "x"]


class Point(BaseModel):
    x: int
    y: int


@dataclass
class Pair:
    left: str
    right: str


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain text", "plain text"),
        (None, "OK"),
        ({"a": [1, 2], "b": "é"}, '{"a":[1,2],"b":"é"}'),
        ([1, "two", None], '[1,"two",null]'),
        (Point(x=1, y=2), '{"x":1,"y":2}'),
        ([Point(x=3, y=4)], '[{"x":3,"y":4}]'),
        (Pair("a", "b"), '{"left":"a","right":"b"}'),
        (7, "7"),
        (True, "true"),
    ],
)
def test_render_return_values(value: Any, expected: str) -> None:
    assert render(value) == expected


def test_long_results_are_truncated_with_paging_hint(box: Toolbox) -> None:
    text = "x" * 120
    result = box.dispatch("echo", json.dumps({"text": text, "page": 3}))
    assert result.ok
    assert result.value == text
    assert result.content.startswith("x" * 50 + "\n[truncated")
    assert "x" * 51 not in result.content
    assert "showing 50 of 120 characters, 70 cut" in result.content
    assert "page=4" in result.content


def test_truncation_without_page_parameter_suggests_narrowing() -> None:
    @tool
    def dump(n: int) -> str:
        """Dump.

        Args:
            n: How much.
        """
        return "y" * n

    small = Toolbox([dump], max_result_chars=10)
    assert small.dispatch("dump", '{"n": 10}').content == "y" * 10
    cut = small.dispatch("dump", '{"n": 11}').content
    assert "1 cut" in cut and "ask for less" in cut and "page=" not in cut


# --- dispatch: errors --------------------------------------------------------------


def _assert_error(result: Any, *fragments: str) -> None:
    assert not result.ok
    assert result.content.startswith("Error: ")
    assert result.error is not None
    for fragment in fragments:
        assert fragment in result.content, result.content


def test_unknown_tool_lists_available_tools(box: Toolbox) -> None:
    result = box.dispatch("serch_notes", "{}")
    _assert_error(
        result,
        "there is no tool named 'serch_notes'",
        "available tools: search_notes, add_note, echo, ping",
        "did you mean 'search_notes'",
    )
    assert result.error_kind == "unknown_tool"


def test_invalid_json_gives_parser_message_and_example(box: Toolbox) -> None:
    result = Toolbox([tool(search_notes)]).dispatch("search_notes", '{"query": "x",')
    _assert_error(
        result,
        "the arguments of search_notes are not valid JSON",
        "line 1 column",
        'send a JSON object like {"query": "..."}',
    )
    assert result.error_kind == "invalid_json"
    example = Toolbox([add_note]).dispatch("add_note", "{text: milk}")
    _assert_error(example, 'like {"text": "..."}')


@pytest.mark.parametrize(
    ("arguments", "kind"),
    [("[1, 2]", "an array"), ('"query"', "a string"), ("null", "null"), ("3", "a number")],
)
def test_non_object_json(box: Toolbox, arguments: str, kind: str) -> None:
    result = box.dispatch("echo", arguments)
    _assert_error(result, f"must be a JSON object, not {kind}", '{"text": "..."}')
    assert result.error_kind == "not_an_object"


def test_validation_errors_list_bad_missing_and_unexpected_fields(box: Toolbox) -> None:
    result = box.dispatch(
        "search_notes", '{"limit": "lots", "kind": "memo", "tags": ["a", 3], "colour": "red"}'
    )
    _assert_error(
        result,
        "the arguments of search_notes are invalid",
        '- limit: should be a valid integer, unable to parse string as an integer; got "lots"',
        "- kind: should be 'note' or 'todo'; got \"memo\"",
        "- tags[1]: should be a valid string; got 3",
        "missing required field(s): 'query' (string)",
        "unexpected field(s): 'colour'; search_notes takes only: query, limit, kind, tags, since",
    )
    assert result.error_kind == "invalid_arguments"


def test_constraint_violation_and_unasked_heartbeat(box: Toolbox) -> None:
    result = box.dispatch("add_note", '{"text": "a", "page": 0, "request_heartbeat": true}')
    _assert_error(result, "- page: should be greater than or equal to 1; got 0")
    assert result.heartbeat  # the model asked for control back even though the call failed
    # A tool without a heartbeat ignores one rather than refusing the call: small models
    # told any call may ask for one send it to send_message too, and lost the reply.
    no_hb = box.dispatch("echo", '{"text": "a", "request_heartbeat": true}')
    assert no_hb.ok and no_hb.content == "a" and not no_hb.heartbeat
    other = box.dispatch("echo", '{"text": "a", "request_heartbeat": "yes", "colour": 1}')
    _assert_error(other, "unexpected field(s): 'colour'; echo takes only: text, page")
    assert "request_heartbeat" not in other.content and not other.heartbeat


@tool
def _remote_ping(request_heartbeat: bool) -> str:
    """Ping a remote service.

    Args:
        request_heartbeat: Whether the service should start sending heartbeats.
    """
    return f"heartbeats {'on' if request_heartbeat else 'off'}"


def test_a_tool_that_takes_a_parameter_named_request_heartbeat_is_given_it() -> None:
    # Only a heartbeat sent to a tool that takes none is dropped; dropping a tool's own
    # required parameter refused every call as missing the field the model had sent.
    result = Toolbox([_remote_ping]).dispatch("_remote_ping", '{"request_heartbeat": true}')
    assert result.ok and result.content == "heartbeats on" and not result.heartbeat


def test_oversized_arguments_rejected_without_parsing(box: Toolbox) -> None:
    # Invalid JSON past the limit: a parse attempt would report a JSON error instead.
    payload = '{"text": "' + "x" * MAX_ARGUMENT_BYTES + "]]]"
    result = box.dispatch("echo", payload)
    _assert_error(result, "over the 1 MB limit", str(MAX_ARGUMENT_BYTES))
    assert result.error_kind == "too_large"
    # Multi-byte text counts in bytes, not characters.
    wide = json.dumps({"text": "é" * (MAX_ARGUMENT_BYTES // 2 + 10)}, ensure_ascii=False)
    assert len(wide) < MAX_ARGUMENT_BYTES
    _assert_error(box.dispatch("echo", wide), "over the 1 MB limit")


def test_tool_error_message_passes_through(box: Toolbox) -> None:
    ctx = Ctx(notes=[])
    result = box.dispatch("add_note", '{"text": "full"}', context=ctx)
    _assert_error(result)
    assert result.content == "Error: the notebook is full; delete a note first"
    assert result.error_kind == "tool_error"
    other = box.dispatch("add_note", '{"text": "bad"}', context=ctx)
    assert other.content == "Error: notes cannot be 'bad'"
    assert ctx.notes == []


def test_unexpected_exception_names_tool_and_type(box: Toolbox) -> None:
    result = box.dispatch(
        "add_note", '{"text": "boom", "request_heartbeat": true}', context=Ctx(notes=[])
    )
    _assert_error(result)
    assert result.content == "Error: add_note failed: RuntimeError: disk on fire"
    assert result.error_kind == "crashed"
    assert isinstance(result.exception, RuntimeError)
    assert result.heartbeat and result.value is None


def test_huge_error_messages_are_truncated_too(box: Toolbox) -> None:
    @tool
    def loud() -> None:
        """Fail loudly."""
        raise ToolError("z" * 500)

    result = Toolbox([loud], max_result_chars=100).dispatch("loud", "")
    assert result.content.startswith("Error: zzz")
    assert "[truncated: showing 100 of 507 characters" in result.content
    assert len(result.content) < 250


def test_many_invalid_items_are_summarised_not_listed(box: Toolbox) -> None:
    result = box.dispatch("search_notes", json.dumps({"query": "q", "tags": list(range(500))}))
    _assert_error(result, "- tags[9]: should be a valid string; got 9", "and 490 more")
    assert "tags[10]" not in result.content
    assert len(result.content) < 1500


@pytest.mark.parametrize(("name", "arguments"), [
    ("serch_notes", "{}"), ("search_notes", '{"query": "x",'), ("echo", "[1, 2]"),
    ("search_notes", '{"limit": "lots"}'), ("add_note", '{"text": "a", "page": 0}'),
])
def test_check_refuses_what_dispatch_refuses_and_runs_nothing(
        box: Toolbox, name: str, arguments: str) -> None:
    checked = box.check(name, arguments)
    assert checked is not None
    assert vars(checked) == vars(box.dispatch(name, arguments))


def test_check_passes_a_call_dispatch_would_run_without_running_it() -> None:
    ran: list[str] = []

    @tool
    def remember(text: str) -> None:
        """Remember a text.

        Args:
            text: What to remember.
        """
        ran.append(text)

    assert Toolbox([remember]).check("remember", '{"text": "milk"}') is None
    assert ran == []


def test_a_tool_that_takes_a_context_dispatched_without_one_is_the_caller_s_error(
        box: Toolbox) -> None:
    with pytest.raises(TypeError, match=r"the tool 'add_note' needs context=\.\.\."):
        box.dispatch("add_note", {"text": "eggs"})
    # The model's mistakes are still answered, context or not: nothing would have run.
    refused = box.dispatch("add_note", {"text": "eggs", "page": 0})
    assert not refused.ok and refused.error_kind != "crashed"
    assert box.dispatch("echo", {"text": "hi"}).content == "hi"  # takes none: runs
