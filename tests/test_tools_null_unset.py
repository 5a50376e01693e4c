"""A JSON null for an optional parameter that takes none is a value left unset: the default
is meant (tools/dispatch.py)."""

from __future__ import annotations

import json

import pytest

from tiermem.tools.declare import tool
from tiermem.tools.dispatch import Toolbox
from tiermem.tools.memory_tools import memory_toolbox


@tool(heartbeat=True)
def find(query: str, page: int = 1, since: str | None = None, mode: str = "any") -> str:
    """Find something.

    Args:
        query: What to look for.
        page: Which page.
        since: The first date, if any.
        mode: How to match.
    """
    return f"{query} {page} {since} {mode}"


@pytest.mark.parametrize(("arguments", "content"), [
    ({"query": "tea", "page": None}, "tea 1 None any"),
    ({"query": "tea", "mode": None, "request_heartbeat": None}, "tea 1 None any"),
    ({"query": "tea", "since": None}, "tea 1 None any"),  # a parameter that takes null
])
def test_a_null_for_an_optional_parameter_leaves_it_unset(arguments: dict[str, object],
                                                            content: str) -> None:
    result = Toolbox([find]).dispatch("find", json.dumps(arguments))
    assert (result.ok, result.content, result.heartbeat) == (True, content, False)


def test_a_null_for_a_required_parameter_is_still_refused() -> None:
    result = Toolbox([find]).dispatch("find", '{"query": null}')
    assert not result.ok
    assert "- query: should be a valid string; got null" in result.content


@pytest.mark.parametrize(("name", "arguments"), [
    ("core_memory_append", {"content": "x", "request_heartbeat": None}),
    ("archival_memory_search", {"query": "x", "page": None}),
    ("conversation_search", {"query": "x", "page": None, "roles": None}),
])
def test_the_memory_tools_take_a_null_left_unset(name: str, arguments: dict[str, object]) -> None:
    assert memory_toolbox().check(name, json.dumps(arguments)) is None
