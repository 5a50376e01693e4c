"""Qwen3-Coder's calls: each argument in a <parameter=KEY> tag (agent/text_call_parameters.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn, explained_turn, noted_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "archival_memory_search", "send_message"]
APPEND = ("<function=core_memory_append>\n<parameter=content>\nAllergic to peanuts\n"
          "</parameter>\n</function>")
SEND = "<function=send_message>\n<parameter=message>\nNoted.\n</parameter>\n</function>"


def found(content: str, **kwargs: Any) -> tuple[list[tuple[str, Any]], str]:
    result = find_text_tool_calls(content, NAMES, **kwargs)
    return [(c.name, json.loads(c.arguments)) for c in result.calls], result.rest


@pytest.mark.parametrize(("content", "rest"), [
    (f"<tool_call>\n{APPEND}\n</tool_call>", ""),
    (f"<tool_call>\n{APPEND}\n</tool_call><|im_end|>", ""),
    (APPEND, ""),  # the server took the tool_call tags out
    (f"I'll remember that.\n<tool_call>\n{APPEND}\n</tool_call>", "I'll remember that."),
    (f"<tool_call>{APPEND}", ""),  # the stop token came before the closing tag
    # The opening tag left out, the closing one written (after a sentence, mostly)
    (f"{APPEND}\n</tool_call>", ""),
    (f"I'll remember that.\n\n{APPEND}\n</tool_call>", "I'll remember that."),
])
def test_a_call_with_parameter_tags_runs(content: str, rest: str) -> None:
    assert found(content) == ([("core_memory_append", {"content": "Allergic to peanuts"})], rest)


def test_the_agent_runs_a_call_whose_opening_tag_is_left_out(server: FakeOpenAIServer) -> None:
    result, _ = allergy_turn(server, f"Saving that.\n\n{APPEND}\n</tool_call>")
    assert result.reply == "Saving that."
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]


def test_values_are_raw_text_without_one_line_break_either_side() -> None:
    content = ("<tool_call>\n<function=archival_memory_search>\n<parameter=query>\n\n"
               "tea & <b>cakes</b>\n  indented\n\n</parameter>\n<parameter=page>\n2\n"
               "</parameter>\n</function>\n</tool_call>")
    assert found(content) == ([("archival_memory_search", {
        "query": "\ntea & <b>cakes</b>\n  indented\n", "page": "2"})], "")


def test_several_calls_each_in_its_tags() -> None:
    assert found(f"<tool_call>\n{APPEND}\n</tool_call>\n<tool_call>\n{SEND}\n</tool_call>") == (
        [("core_memory_append", {"content": "Allergic to peanuts"}),
         ("send_message", {"message": "Noted."})], "")


@pytest.mark.parametrize("content", [
    "<tool_call><function=core_memory_append><parameter=content>a</parameter>"
    "<parameter=content>b</parameter></function></tool_call>",  # given twice
    "<tool_call><function=core_memory_append><parameter=content>a</parameter>"
    "and more</function></tool_call>",  # text beside the parameters
])
def test_parameter_tags_that_do_not_close_or_are_not_alone_are_no_call(content: str) -> None:
    result = find_text_tool_calls(content, NAMES)
    assert result.calls == [] and result.rest == content


@pytest.mark.parametrize("content", [
    # Qwen3-Coder leaves out the last "</parameter>", mostly after a long value.
    "<tool_call>\n<function=archival_memory_search>\n<parameter=query>\npeanut allergy\n"
    "</parameter>\n<parameter=page>\n2\n</function>\n</tool_call>",
    "<function=archival_memory_search>\n<parameter=query>\npeanut allergy\n</parameter>\n"
    "<parameter=page>\n2\n</function>",  # the server took the tool_call tags out
    "<function=archival_memory_search>\n<parameter=query>\npeanut allergy\n"
    "<parameter=page>\n2\n</function>",  # nor any other "</parameter>"
    # The next parameter closed: its "</parameter>" does not end the one before
    "<function=archival_memory_search>\n<parameter=query>\npeanut allergy\n"
    "<parameter=page>\n2\n</parameter>\n</function>",
])
def test_a_parameter_left_unclosed_ends_where_the_next_one_or_the_call_does(
        content: str) -> None:
    assert found(content) == ([("archival_memory_search",
                                {"query": "peanut allergy", "page": "2"})], "")


def test_a_value_that_shows_the_tags_is_not_cut_at_them() -> None:
    shown = "Write <parameter=page>2 to ask for page 2."
    content = (f"<tool_call>\n<function=core_memory_append>\n<parameter=content>\n{shown}\n"
               "</parameter>\n</function>\n</tool_call>")
    assert found(content) == ([("core_memory_append", {"content": shown})], "")


def test_a_tag_inside_a_line_of_an_unclosed_value_is_its_text() -> None:
    code = 'tag = "<parameter=page>"\nprint(tag)'
    content = (f"<tool_call>\n<function=core_memory_append>\n<parameter=content>\n{code}\n"
               "</function>\n</tool_call>")
    assert found(content) == ([("core_memory_append", {"content": code})], "")


@pytest.mark.parametrize("after", ["", "<parameter=durability>\ndurable\n</parameter>\n"])
@pytest.mark.parametrize("wrap", [False, True])
def test_a_closing_tag_inside_a_line_of_a_value_is_its_text(after: str, wrap: bool) -> None:
    code = 'end = "</parameter>"  # closes a value'
    call = (f"<function=core_memory_append>\n<parameter=content>\n{code}\n</parameter>\n"
            f"{after}</function>")
    calls, rest = found(f"<tool_call>\n{call}\n</tool_call>" if wrap else call)
    assert calls[0][1]["content"] == code and rest == ""


def test_the_agent_saves_a_value_holding_a_closing_tag(server: FakeOpenAIServer) -> None:
    fact = "Qwen ends a value with </parameter> on its own line"
    allergy_turn(server, f"<tool_call>\n{APPEND.replace('Allergic to peanuts', fact)}\n"
                         "</tool_call>", core=fact)


@pytest.mark.parametrize("placeholder", ["...", "\u2026"])
def test_the_agent_shows_the_form_explained_with_a_placeholder(
        server: FakeOpenAIServer, placeholder: str) -> None:
    explained = (f"Qwen3-Coder writes:\n{APPEND.replace('Allergic to peanuts', placeholder)}\n"
                 "</tool_call>\nas its call.")
    explained_turn(server, explained, "How does Qwen3-Coder write a call?")


def test_the_agent_keeps_a_value_unclosed_before_a_closed_parameter_apart(
        server: FakeOpenAIServer) -> None:
    call = APPEND.replace("</parameter>\n", "<parameter=durability>\ndurable\n</parameter>\n")
    result, _ = allergy_turn(server, f"<tool_call>\n{call}\n</tool_call>")
    assert json.loads(result.tool_calls[0].arguments) == {
        "content": "Allergic to peanuts", "durability": "durable"}


def test_the_agent_runs_a_call_whose_last_parameter_is_unclosed(
        server: FakeOpenAIServer) -> None:
    unclosed = APPEND.replace("</parameter>\n", "")
    noted_turn(server, f"<tool_call>\n{unclosed}\n</tool_call>\n<tool_call>\n{SEND}\n</tool_call>")


def test_a_call_cut_inside_its_parameters_is_found_only_when_cut() -> None:
    content = "<tool_call>\n<function=core_memory_append>\n<parameter=content>\nAllergic"
    assert find_text_tool_calls(content, NAMES).calls == []
    [call] = find_text_tool_calls(content, NAMES, cut=True).calls
    assert call.name == "core_memory_append" and call.arguments.endswith("Allergic")


def test_the_agent_runs_a_qwen3_coder_call(server: FakeOpenAIServer) -> None:
    noted_turn(server, f"<tool_call>\n{APPEND}\n</tool_call>\n<tool_call>\n{SEND}\n</tool_call>")


SCHEMAS = {"archival_memory_insert": {"properties": {
    "content": {"type": "string"},
    "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
    "page": {"type": "integer"}, "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    "start_date": {"type": ["string", "null"]},
    "other": {"description": "says nothing of its type"}}}}


@pytest.mark.parametrize(("key", "written", "value"), [
    ("tags", '["drinks", "tea"]', ["drinks", "tea"]),  # the template writes a list as JSON
    ("tags", "None", None),  # and Python's None as Python writes it
    ("tags", "drinks", "drinks"),  # no JSON: the text, for the tool to refuse as it is
    ("page", "2", 2),
    ("content", '["drinks"]', '["drinks"]'),  # a parameter that takes text keeps it
    # A null, as the template writes Python's None, where the schema takes text too
    ("note", "null", None),
    ("start_date", "None", None),
    ("start_date", "2024-05-08", "2024-05-08"),
    ("content", "None", "None"),  # a parameter that may not be null keeps the text
    ("other", "[1]", "[1]"),
    ("page", "1e400", "1e400"),  # JSON has no infinity: the text, for the tool to refuse
    ("page", "NaN", "NaN"),
    ("page", "-Infinity", "-Infinity"),
    ("tags", "[1e999]", "[1e999]"),
])
def test_a_value_is_json_only_where_the_schema_takes_no_text(key: str, written: str,
                                                            value: Any) -> None:
    content = (f"<function=functions.archival_memory_insert>\n<parameter={key}>\n{written}\n"
               "</parameter>\n</function>")
    for text in (content, f"<tool_call>\n{content}\n</tool_call>"):
        assert find_text_tool_calls(text, [*NAMES, "archival_memory_insert"],
                                    schemas=SCHEMAS).calls[0].arguments == json.dumps(
            {key: value})


@pytest.mark.parametrize(("tool", "parameters", "key", "value"), [
    # a list, written as JSON, is filed with its tags
    ("archival_memory_insert", {"content": "User likes green tea", "tags": '["drinks"]'},
     "tags", ["drinks"]),
    # a date left out as the template writes a null searches without it
    ("archival_memory_search", {"query": "peanuts", "start_date": "None"}, "start_date", None),
])
def test_a_value_the_schema_reads_as_json_reaches_the_tool(
        server: FakeOpenAIServer, tool: str, parameters: dict[str, str], key: str,
        value: Any) -> None:
    tags = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in parameters.items())
    result, _ = allergy_turn(server, f"<tool_call>\n<function={tool}>\n{tags}</function>\n"
                                     f"</tool_call>\n<tool_call>\n{APPEND}\n</tool_call>")
    assert [(r.name, r.ok) for r in result.tool_results] == [
        (tool, True), ("core_memory_append", True)]
    assert json.loads(result.tool_calls[0].arguments)[key] == value


@pytest.mark.parametrize(("key", "written"), [
    ("request_heartbeat", "None"),  # a boolean the model left unset, as the template writes it
    ("request_heartbeat", "null"),
    ("page", "None"),
])
def test_a_null_for_a_parameter_that_takes_neither_null_nor_text_leaves_it_out(
        key: str, written: str) -> None:
    schemas = {"archival_memory_search": {"properties": {
        "query": {"type": "string"}, "page": {"type": "integer"},
        "request_heartbeat": {"type": "boolean"}}}}
    content = (f"<function=archival_memory_search>\n<parameter=query>\ntea\n</parameter>\n"
               f"<parameter={key}>\n{written}\n</parameter>\n</function>")
    [call] = find_text_tool_calls(content, NAMES, schemas=schemas).calls
    assert json.loads(call.arguments) == {"query": "tea"}
    twice = content.replace("</function>", f"<parameter={key}>\nNone\n</parameter>\n</function>")
    assert find_text_tool_calls(twice, NAMES, schemas=schemas).calls == []


def test_the_agent_runs_a_call_whose_heartbeat_is_none(server: FakeOpenAIServer) -> None:
    unset = APPEND.replace("</function>", "<parameter=request_heartbeat>\nNone\n</parameter>\n"
                                          "</function>")
    result, _ = allergy_turn(server, f"<tool_call>\n{unset}\n</tool_call>")
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
