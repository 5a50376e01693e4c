"""A true or false sent for a number parameter is an error to the model, not 1 or 0
(tools/declare.py)."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from fake_openai import FakeOpenAIServer
from pydantic import Field

from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.tools.declare import tool
from tiermem.tools.dispatch import Toolbox
from tiermem.tools.memory_tools import MEMORY_TOOLS, memory_toolbox


@tool
def pick(page: int = 1, first: Annotated[int, Field(ge=1)] = 1, share: float | None = None,
         flag: bool | int = 0) -> str:
    """Pick a page.

    Args:
        page: Which page.
        first: The first item.
        share: How much of it.
        flag: On, off or a level.
    """
    return f"{page} {first} {share} {flag}"


@pytest.mark.parametrize(("arguments", "field"), [
    ({"page": True}, "page"), ({"page": False}, "page"), ({"first": True}, "first"),
    ({"share": False}, "share"),
])
def test_a_boolean_for_a_number_is_refused(arguments: dict[str, object], field: str) -> None:
    result = Toolbox([pick]).dispatch("pick", json.dumps(arguments))
    assert not result.ok and result.error_kind == "invalid_arguments"
    assert f"- {field}: should be a valid" in result.content


@pytest.mark.parametrize(("arguments", "content"), [
    ({"page": "2", "first": 3.0, "share": 0.5}, "2 3 0.5 0"),  # numbers as before
    ({"flag": True}, "1 1 None True"),  # a parameter that takes a boolean still does
    ({"share": None}, "1 1 None 0"),
])
def test_numbers_and_booleans_where_taken_still_read(arguments: dict[str, object],
                                                     content: str) -> None:
    result = Toolbox([pick]).dispatch("pick", json.dumps(arguments))
    assert (result.ok, result.content) == (True, content)


def test_the_search_tools_refuse_a_boolean_page() -> None:
    box = memory_toolbox()
    for name in ("archival_memory_search", "conversation_search"):
        result = box.check(name, '{"query": "tea", "page": true}')
        assert result is not None and not result.ok
        assert "- page: should be a valid integer; got true" in result.content


def test_the_model_is_told_its_boolean_page_is_no_page(server: FakeOpenAIServer) -> None:
    search = {"name": "archival_memory_search", "arguments": {"query": "tea", "page": True}}
    server.enqueue_reply(f"<tool_call>{json.dumps(search)}</tool_call>")
    server.enqueue_reply("I found nothing about tea.")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("What tea do I like?")
    [searched] = result.tool_results
    assert (searched.name, searched.ok, searched.error_kind) == (
        "archival_memory_search", False, "invalid_arguments")
    assert result.reply == "I found nothing about tea."


@tool
def label(size: int | str = 1) -> str:
    """Label something.

    Args:
        size: A count, or a word for one.
    """
    return str(size)


@pytest.mark.parametrize(("value", "shown"), [(True, "true"), (1.5, "1.5"), ([], "[]")])
def test_a_union_member_is_named_by_its_type(value: object, shown: str) -> None:
    result = Toolbox([label]).dispatch("label", json.dumps({"size": value}))
    assert not result.ok
    lines = [line.split(":")[0] for line in result.content.splitlines() if line.startswith("- ")]
    assert lines == ["- size.int", "- size.str"], result.content
    assert f"got {shown}" in result.content


@tool(heartbeat=True)
def rate(ids: list[int] | None = None, stars: Annotated[int | None, Field(ge=1)] = None,
         weights: dict[str, float] | None = None) -> str:
    """Rate some items.

    Args:
        ids: Which items.
        stars: How many stars, if any.
        weights: How much each counts.
    """
    return f"{ids} {stars} {weights}"


@pytest.mark.parametrize(("arguments", "where"), [
    ({"ids": [1, True]}, "ids[1]: should be a valid integer"),
    ({"stars": True}, "stars: should be a valid integer"),
    ({"weights": {"a": False}}, "weights.a: should be a valid number"),
])
def test_a_boolean_for_a_number_inside_a_type_is_refused(arguments: dict[str, object],
                                                         where: str) -> None:
    result = Toolbox([rate]).dispatch("rate", json.dumps(arguments))
    assert not result.ok and f"- {where}; got" in result.content, result.content


def test_the_numbers_inside_a_type_keep_their_constraints_and_schema() -> None:
    box = Toolbox([rate])
    assert box.dispatch("rate", '{"ids": [1, 2], "stars": 3}').content == "[1, 2] 3 None"
    assert "- stars: should be greater than or equal to 1" in box.dispatch(
        "rate", '{"stars": 0}').content
    assert rate.parameters()["properties"]["stars"]["anyOf"][0] == {
        "minimum": 1, "type": "integer"}


@tool
def tally(count: int | list[int] = 0) -> str:
    """Tally.

    Args:
        count: One count, or several.
    """
    return str(count)


def test_a_list_in_a_union_is_named_by_its_type() -> None:
    result = Toolbox([tally]).dispatch("tally", '{"count": [true]}')
    assert "- count.list[int][0]: should be a valid integer; got true" in result.content


def test_the_model_is_told_its_boolean_item_is_no_number(server: FakeOpenAIServer) -> None:
    server.enqueue_tool_calls([("rate", json.dumps({"ids": [True], "request_heartbeat": True}))])
    server.enqueue_reply("Which items did you mean?")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client, toolbox=Toolbox([*MEMORY_TOOLS, rate])).step("Rate it.")
    [rated] = result.tool_results
    assert (rated.name, rated.ok, rated.error_kind) == ("rate", False, "invalid_arguments")
    assert result.reply == "Which items did you mean?"


@tool
def find_item(key: Annotated[int | str, Field(description="An id or a name.")],
              limit: Annotated[int | None, Field(ge=1)] = None) -> str:
    """Find an item.

    Args:
        key: An id or a name.
        limit: How many at most.
    """
    return f"{key} {limit}"


def test_a_boolean_for_an_annotated_union_names_every_type_it_takes() -> None:
    box = Toolbox([find_item])
    refused = box.dispatch("find_item", '{"key": true}')
    assert "- key: should be a valid integer or string; got true" in refused.content
    no_limit = box.dispatch("find_item", '{"key": 3, "limit": false}')
    assert "- limit: should be a valid integer; got false" in no_limit.content
    assert box.dispatch("find_item", '{"key": "tea", "limit": 2}').content == "tea 2"
