"""Calls written as a Python list ``[name(key=value)]`` (Llama 3.2 1B/3B, Llama 4)."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message", "archival_memory_search"]


def calls(content: str, *, cut: bool = False) -> list[tuple[str, object]]:
    found = find_text_tool_calls(content, NAMES, cut=cut)
    return [(c.name, json.loads(c.arguments)) for c in found.calls]


@pytest.mark.parametrize(("content", "expected"), [
    ('[core_memory_append(content="Allergic to peanuts")]',
     [("core_memory_append", {"content": "Allergic to peanuts"})]),
    ('[core_memory_append(content="Likes tea"), send_message(message="Noted.")]',
     [("core_memory_append", {"content": "Likes tea"}), ("send_message", {"message": "Noted."})]),
    # JSON spellings of the literals, nesting, negatives, and the end token a server left in
    ('  [archival_memory_search(query="tea", page=-1, tags=["a", "b"], strict=true, '
     'extra={"k": null}, flag=False)]<|eot_id|>\n',
     [("archival_memory_search", {"query": "tea", "page": -1, "tags": ["a", "b"],
                                  "strict": True, "extra": {"k": None}, "flag": False})]),
    ('[send_message(message="ünïcode ✓", count=1.5)]',
     [("send_message", {"message": "ünïcode ✓", "count": 1.5})]),
    # Llama 4's markers around the list, and a backslash Python would warn about
    ('<|python_start|>[send_message(message="C:\\d")]<|python_end|>',
     [("send_message", {"message": "C:\\d"})]),
])
def test_a_python_list_of_calls_to_offered_tools_is_read(content: str,
                                                         expected: list[object]) -> None:
    assert calls(content) == expected
    assert find_text_tool_calls(content, NAMES).rest == ""


@pytest.mark.parametrize("content", [
    'Write [core_memory_append(content="x")] to save a fact.',  # the syntax, explained
    '[core_memory_append(content="x")] and then I answer.',
    '[os.system(command="rm -rf /")]',  # not an offered tool
    '[core_memory_append(content="x"), os.system(command="ls")]',  # half calls
    '[core_memory_append("positional")]',  # no parameter names to match
    '[core_memory_append(content=open("/etc/passwd").read())]',  # an expression, never run
    '[core_memory_append(content=f"{secret}")]',
    '[core_memory_append(**{"content": "x"})]',
    '[core_memory_append(content=1e999)]',  # no JSON for infinity
    "[send_message(message=...)]",  # copied from an example
    '[core_memory_append(content={1: "x"})]',  # keys must be text
    "[1, 2, 3]",
    "[]",
    "[core_memory_append]",
])
def test_other_text_stays_the_reply(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert found.calls == [] and found.rest == content


def test_a_list_cut_off_at_max_tokens_is_one_cut_call() -> None:
    content = '[core_memory_append(content="Allergic to pea'
    assert find_text_tool_calls(content, NAMES).calls == []
    [call] = find_text_tool_calls(content, NAMES, cut=True).calls
    assert call.name == "core_memory_append" and call.arguments == content


def test_deep_nesting_is_refused_not_raised() -> None:
    content = "[core_memory_append(content=" + "[" * 5000 + "]" * 5000 + ")]"
    assert find_text_tool_calls(content, NAMES).calls == []


SCHEMAS = {
    "core_memory_append": {"type": "object", "properties": {
        "content": {"type": "string"}, "durability": {"type": "string"},
        "request_heartbeat": {"type": "boolean"}}, "required": ["content"]},
    "core_memory_replace": {"type": "object", "properties": {
        "old_content": {"type": "string"}, "new_content": {"type": "string"},
        "request_heartbeat": {"type": "boolean"}}, "required": ["old_content", "new_content"]},
    "send_message": {"type": "object", "properties": {"message": {"type": "string"}},
                     "required": ["message"]},
    "archival_memory_search": {"type": "object", "properties": {
        "query": {"type": "string"}, "page": {"type": "integer"}, "tags": {"type": "array"}},
        "required": ["query"]},
    # required parameters that are not the first ones declared
    "odd": {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["b"]},
}


def positional(content: str) -> list[tuple[str, object]]:
    found = find_text_tool_calls(content, SCHEMAS, schemas=SCHEMAS)
    if found.calls:
        assert found.rest == ""
    return [(c.name, json.loads(c.arguments)) for c in found.calls]


@pytest.mark.parametrize(("content", "expected"), [
    # Llama 3.2 1B/3B: the value of the only required parameter, by position
    ('[core_memory_append("Allergic to peanuts")]',
     [("core_memory_append", {"content": "Allergic to peanuts"})]),
    ('[core_memory_replace("Lives in Oslo", "Lives in Bergen")]',
     [("core_memory_replace", {"old_content": "Lives in Oslo", "new_content": "Lives in Bergen"})]),
    # every declared parameter, in order
    ('[archival_memory_search("tea", 2, ["drinks"])]',
     [("archival_memory_search", {"query": "tea", "page": 2, "tags": ["drinks"]})]),
    # the required one by position, an optional one by keyword
    ('[archival_memory_search("tea", page=2), send_message("Noted.")]',
     [("archival_memory_search", {"query": "tea", "page": 2}),
      ("send_message", {"message": "Noted."})]),
])
def test_positional_values_take_the_schemas_parameters_in_order(
        content: str, expected: list[object]) -> None:
    assert positional(content) == expected


@pytest.mark.parametrize("content", [
    '[archival_memory_search("tea", 2)]',  # two of three, one required: which two?
    '[core_memory_append("x", "y")]',
    '[core_memory_append("a", "b", True, "extra")]',  # more values than parameters
    '[archival_memory_search(2, query="tea")]',  # the first parameter given twice
    '[odd("x")]',  # the one required parameter is not the first declared
    '[core_memory_append(*["x"])]',
    '[send_message(message="a", message="b")]',  # not Python: a keyword repeated
    '[core_memory_append(open("/etc/passwd"))]',  # an expression, never run
])
def test_positional_values_that_leave_doubt_stay_the_reply(content: str) -> None:
    found = find_text_tool_calls(content, SCHEMAS, schemas=SCHEMAS)
    assert found.calls == [] and found.rest == content


def test_without_the_schemas_positional_values_stay_the_reply() -> None:
    content = '[core_memory_append("Allergic to peanuts")]'
    assert find_text_tool_calls(content, NAMES).calls == []
    broken = {"core_memory_append": {"properties": ["content"], "required": "content"}}
    assert find_text_tool_calls(content, NAMES, schemas=broken).calls == []


@pytest.mark.parametrize("required", [[{"name": "content"}], [["content"]], [1], ["content", {}]])
def test_a_schema_whose_required_items_are_not_names_maps_no_positional_value(
        required: list[object]) -> None:
    # Items that are not text (unhashable ones above all) must not raise out of a turn.
    content = '[core_memory_append("Allergic to peanuts")]'
    schema = {"type": "object", "properties": {"content": {}, "tags": {}}, "required": required}
    found = find_text_tool_calls(content, NAMES, schemas={"core_memory_append": schema})
    assert found.calls == [] and found.rest == content
    tool_code = f"```tool_code\n{content[1:-1]}\n```"
    assert find_text_tool_calls(tool_code, NAMES,
                                schemas={"core_memory_append": schema}).calls == []


@pytest.mark.parametrize(("content", "rest"), [
    ('```tool_code\ncore_memory_append(content="Allergic to peanuts")\n```', ""),
    ('```tool_code\nprint(default_api.core_memory_append(content="Allergic to peanuts"))\n```',
     ""),
    ('```tool_code\n[core_memory_append(content="Allergic to peanuts")]\n```', ""),
    # read after prose, as call markup is; the positional value through the schema
    ('I will save that.\n```tool_code\ncore_memory_append("Allergic to peanuts")\n```\n',
     "I will save that."),
    # in a markdown list item: the fence and its body indented, by spaces or a tab
    ('1. Save it:\n   ```tool_code\n   core_memory_append(content="Allergic to peanuts")\n'
     '   ```', "1. Save it:"),
    ('- Save it:\n\t```tool_code\n\tcore_memory_append(\n\t    content="Allergic to peanuts")'
     '\n\t```', "- Save it:"),
    # a Windows line end after the label
    ('```tool_code\r\ncore_memory_append(content="Allergic to peanuts")\r\n```', ""),
])
def test_gemmas_tool_code_block_is_read(content: str, rest: str) -> None:
    found = find_text_tool_calls(content, NAMES, schemas=SCHEMAS)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", {"content": "Allergic to peanuts"})]
    assert found.rest == rest


def test_a_tool_code_block_may_hold_several_calls() -> None:
    content = ('```tool_code\ncore_memory_append(content="Likes tea")\n'
               'send_message(message="Noted.")\n```')
    assert calls(content) == [("core_memory_append", {"content": "Likes tea"}),
                              ("send_message", {"message": "Noted."})]


@pytest.mark.parametrize("content", [
    '```python\ncore_memory_append(content="x")\n```',  # code, not a call
    '```tool_code\nimport os\ncore_memory_append(content="x")\n```',
    '```tool_code\nx = core_memory_append(content="x")\n```',
    '```tool_code\nos.system(command="ls")\n```',  # not an offered tool
    '```tool_code\ncore_memory_append(content=open("f").read())\n```',
    '```tool_code\nprint("hello")\n```',
    '```tool_code\n\n```',
])
def test_a_tool_code_block_that_is_not_only_calls_stays_the_reply(content: str) -> None:
    found = find_text_tool_calls(content, NAMES, schemas=SCHEMAS)
    assert found.calls == [] and found.rest == content


def test_a_tool_code_block_cut_off_at_max_tokens_is_one_cut_call() -> None:
    content = '```tool_code\ncore_memory_append(content="Allergic to pea'
    assert find_text_tool_calls(content, NAMES).calls == []
    [call] = find_text_tool_calls(content, NAMES, cut=True).calls
    assert call.name == "core_memory_append" and call.arguments.endswith("pea")


@pytest.mark.parametrize(("content", "expected"), [
    # a real line break inside a string, where Python wants "\n"
    ('[core_memory_append(content="Allergic to:\npeanuts")]', "Allergic to:\npeanuts"),
    ("[core_memory_append(content='It\\'s\r\nfine')]", "It's\r\nfine"),
    ('```tool_code\ncore_memory_append(content="Allergic to:\npeanuts")\n```',
     "Allergic to:\npeanuts"),
    # Llama 3.1's marker before the list
    ('<|python_tag|>[core_memory_append(content="Allergic")]<|eom_id|>', "Allergic"),
    # one call alone, the whole reply
    ('core_memory_append(content="Allergic")', "Allergic"),
    ('<|python_tag|>core_memory_append(content="Allergic")', "Allergic"),
    ('core_memory_append(content="""Allergic\nto peanuts""")\n', "Allergic\nto peanuts"),
])
def test_calls_small_models_write_in_python_s_way(content: str, expected: str) -> None:
    assert calls(content) == [("core_memory_append", {"content": expected})]
    assert find_text_tool_calls(content, NAMES).rest == ""


@pytest.mark.parametrize("content", [
    'core_memory_append(content="x") and then I answer.',
    'I will run core_memory_append(content="x")',
    'os.system(command="ls")',  # not an offered tool
    'print(core_memory_append(content="x"))',  # only in a tool_code block
    'core_memory_append(content="x"), send_message(message="y")',  # a tuple
    'core_memory_append(content="a\nb" + secret)',  # an expression, never run
    'core_memory_append(content="x"',
])
def test_a_call_alone_is_read_only_as_the_whole_reply(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert found.calls == [] and found.rest == content


def test_the_agent_runs_a_call_alone_with_a_line_break_in_its_value(
        server: FakeOpenAIServer) -> None:
    result, shown = allergy_turn(server, 'core_memory_append(content="Allergic to:\npeanuts")',
                                 core="Allergic to:\npeanuts")
    assert [(r.name, r.ok, r.from_text) for r in result.tool_results] == [
        ("core_memory_append", True, True)]
    assert all("core_memory_append(" not in r["content"] for r in shown)


@pytest.mark.parametrize(("content", "rest"), [
    # Llama 3.1 after a sentence of its own, the call written as it writes its built-ins
    ('Let me save that.<|python_tag|>core_memory_append(content="Allergic to peanuts")'
     "<|eom_id|>", "Let me save that."),
    ('I\'ll note it.\n<|python_tag|>[core_memory_append(content="Allergic to peanuts")]',
     "I'll note it."),
])
def test_a_python_call_after_the_python_tag_and_prose_is_read(content: str, rest: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", {"content": "Allergic to peanuts"})]
    assert found.rest == rest


@pytest.mark.parametrize("content", [
    'Searching.<|python_tag|>brave_search.call(query="peanut allergy")',  # not offered
    'You could write `<|python_tag|>core_memory_append(content="x")` to save it.',
    'Done.<|python_tag|>core_memory_append(content="x") and that is all.',
])
def test_python_after_the_python_tag_that_is_no_offered_call_stays_the_reply(
        content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert found.calls == [] and found.rest == content
