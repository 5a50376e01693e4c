"""Tool calls in the markup model families write them in (agent/text_tool_calls.py).

Each form is what a model's chat template teaches it, arriving as content when the
server's template or parser does not take it out:

- Hermes / Qwen: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, one or
  several, with text around them allowed (a last tag may be unclosed); the small Qwen
  models also write the object as a Python dict (``{'name': ..., 'arguments': {...}}``),
  which is read as a literal, never run, and may leave out the first opening tag: a call
  object to an offered tool that begins the reply, then a closing tag or another call's
  opening one, is in the tags;
- Llama 3.1: ``<|python_tag|>{"name": ..., "parameters": {...}}``, several separated by
  ``;``, or a Python call to an offered tool (``<|python_tag|>NAME(key="value")``, as it
  writes its built-in tools'), text before the tag allowed;
- Llama 3.2: ``<function=NAME>{...}</function>``, one or several, text around them
  allowed (a last tag may be unclosed; amid text, tags giving no arguments to tools that
  need some, and nothing else, name the form);
- Qwen3-Coder: ``<function=NAME><parameter=KEY>value</parameter>...</function>``, in the
  Hermes tags or without them, or with only the closing one, before calls in both tags too
  (agent/text_call_parameters.py);
- in the Hermes tags (amid text, with no arguments for a tool that needs some, and no
  other call, naming the form as Llama 3.2's markup does), the name in tags of its own,
  then the arguments:
  ``<tool_call><function>NAME</function>{...}</tool_call>`` (Gemma 3, Qwen), or Llama
  3.2's calls: ``<tool_call><function=NAME>{...}</function></tool_call>``, whose tags wrap
  them and are no prose beside them, with any text in them after the calls kept;
- Mistral: ``[TOOL_CALLS] [{"name": ..., "arguments": {...}}, ...]`` and the newer
  ``[TOOL_CALLS]NAME[ARGS]{...}`` (with ``[CALL_ID]...`` before ``[ARGS]`` in some
  versions, or no ``[ARGS]`` at all: ``[TOOL_CALLS]NAME{...}``, or an offered tool's name
  alone, giving no arguments), text before the first marker allowed; a reply that is nothing
  but this markup, part of which does not read (``[TOOL_CALLS]NAME[TOOL_CALLS]s``, a brace
  left out), cut or not, when another part is a call or it names an offered tool, makes each
  such part a call with its text as arguments, which running answers with what to write;
  arguments that are a whole object then prose (``[ARGS]{...} Done.``) are that object, the
  prose the reply, as is a sentence after the last marker (``[TOOL_CALLS] I saved it.``),
  cut or not; a marker inside a call's own JSON text (``"message": "... [TOOL_CALLS] ..."``)
  is text, cut or not;
- Phi-4-mini: ``<|tool_call|>[{"name": ..., "arguments": {...}}]<|/tool_call|>``, read as
  the Hermes tags are (a call object or a list of them, text around allowed, a last tag
  may be unclosed).

A Hermes tag, followed by nothing but calls (or last and unclosed, in a reply that was not
cut), whose body is a call object to an offered tool that does not read (a brace left out, a
quote not closed) is that call with its text as arguments, which are not valid JSON: running
it answers the model with what is wrong, so that it writes the call again, and the broken
call is not shown as the reply. One with an ellipsis for a value (``"arguments": {...}``), or
left unclosed inside a code block, shows the form and stays the reply.

A tag quoted in a sentence as inline code (`` `<tool_call>{...}</tool_call>` ``) is an
example of the form, not a call, and stays in the reply; alone, or beside nothing but
other calls (quoted or not), it is a call.

A closing tag inside a call's own text (``"content": "... </tool_call> ..."``) does not
end the call: a body that does not read at its first closing tag runs to a later one, or
to the end of the reply.

Inside this markup any tool name makes a call (agent/text_call_objects.py). An end-of-turn
token a server left in (``</s>``, ``<|eom_id|>``, ``<|eot_id|>``, Phi's ``<|end|>``) is
ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from tiermem.agent.llm import ToolCall
from tiermem.agent.text_call_fences import shown_as_example
from tiermem.agent.text_call_mistral_prose import (
    LEAD_ENDS,
    MISTRAL_ARGS,
    MISTRAL_CALLS,
    MISTRAL_WRITTEN,
    is_prose,
    name_shaped,
)
from tiermem.agent.text_call_objects import (
    FENCE,
    TextToolCalls,
    call_sequence,
    calls_in,
    calls_then_text,
    cut_call,
    named_call,
    offered_name,
    python_calls_in,
    spliced,
    unreadable_call,
    whole_without_arguments,
)
from tiermem.agent.text_call_parameters import function_with_parameters, parameters_call
from tiermem.agent.text_call_pythonic import literal_value, pythonic_calls
from tiermem.agent.text_call_tags import (
    after_marker,
    marker_starts,
    tagged,
    without_markup_end_tokens,
)

__all__ = ["markup_forms"]

_HERMES_OPEN, _HERMES_CLOSE = re.compile(re.escape("<tool_call>")), "</tool_call>"
_PHI_OPEN, _PHI_CLOSE = re.compile(re.escape("<|tool_call|>")), "<|/tool_call|>"
_FUNCTION_OPEN, _FUNCTION_CLOSE = re.compile(r"<function=([\w.\-]{1,200})>"), "</function>"
#: The name in tags of its own, then the arguments (Gemma 3 and Qwen under some servers).
_NAME_IN_TAGS = re.compile(r"\s*<function>\s*([\w.\-]{1,200})\s*</function>(.*)", re.DOTALL)
#: Llama 3.2's call in the Hermes tags: ``<tool_call><function=NAME>{...}</function>``.
_FUNCTION_IN_TAGS = re.compile(r"\s*<function=([\w.\-]{1,200})>(.*?)(?:</function>)?\s*",
                               re.DOTALL)
#: An opening Hermes tag around Llama 3.2's call (``<tool_call><function=NAME>{...}``).
_WRAPPING_OPEN = re.compile(r"<tool_call>\s*(?=<function=)")
#: A closing Hermes tag straight after a call whose opening one the model left out.
_ORPHAN_CLOSE = re.compile(r"</function>\s*</tool_call>")
_PYTHON_TAG = "<|python_tag|>"
_MISTRAL_CALL_ID = re.compile(r"\[CALL_ID\].*", re.DOTALL)
#: What comes between a call's name and its arguments: [ARGS], a [CALL_ID] before it or not.
_MISTRAL_CALL_ID_ARGS = re.compile(r"\A(?:\[CALL_ID\][^\[{]*)?\[ARGS\]")
_MISTRAL_NAME = re.compile(r"[\w.\-]{1,200}")
#: The name written straight before its arguments, without ``[ARGS]`` between them.
_MISTRAL_NAMED = re.compile(r"\s*([\w.\-]{1,200})\s*(\{.*)", re.DOTALL)
_SPACE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()

# The calls in content, given the offered tools' names and whether the reply was cut.
MarkupForm = Callable[[str, frozenset[str], bool], TextToolCalls]


def hermes_calls(content: str, names: frozenset[str], cut: bool,
                 schemas: Mapping[str, Any] | None = None,
                 after_prose: bool = False) -> TextToolCalls:
    def read(_tag: re.Match[str], body: str, unfinished: bool,
             alone: bool = True) -> list[ToolCall] | None:
        found = calls_in(_unfenced(body), names, marked=True)
        if found is None and not unfinished:
            # Small Qwen models write the call as a Python dict: in single quotes, or in
            # double ones with Python's True, False or None, or a trailing comma.
            found = python_calls_in(literal_value(_unfenced(body)), names, marked=True)
        if found is None:  # Qwen3-Coder: <function=NAME><parameter=KEY>value</parameter>...
            found = function_with_parameters(without_markup_end_tokens(body),
                                             unfinished=unfinished, schemas=schemas)
        if found is None and (named := _NAME_IN_TAGS.fullmatch(without_markup_end_tokens(body))
                              or _FUNCTION_IN_TAGS.fullmatch(without_markup_end_tokens(body))):
            found = named_call(named.group(1), named.group(2), unfinished=unfinished,
                               alone=alone, schemas=schemas)
        return cut_call(body, names, marked=True) if found is None and unfinished else found

    def unreadable(body: str) -> list[ToolCall] | None:
        return unreadable_call(_unfenced(body), names)

    text = _functions_opened(_opened(content, names))
    found = tagged(text, _HERMES_OPEN, _HERMES_CLOSE, read, cut, unreadable)
    if _named_in_prose(found, after_prose, lambda: tagged(
            text, _HERMES_OPEN, _HERMES_CLOSE, partial(read, alone=False), cut, unreadable)):
        return TextToolCalls(rest=content)  # "Checking. <tool_call><function=NAME></function>"
    return found if found.calls else TextToolCalls(rest=content)


def _opened(content: str, names: frozenset[str]) -> str:
    """``content`` with the opening tag the model left out put back before a call object to
    an offered tool that the reply begins with, when the Hermes markup follows that call:
    its closing tag, or the next call's opening one. Else ``content`` as it is."""
    text = content.lstrip()
    if not text.startswith("{"):
        return content
    try:
        _, end = _DECODER.raw_decode(text)
    except (ValueError, RecursionError):
        return content
    if calls_in(text[:end], names, marked=False) is None:
        return content
    after = _SPACE.match(text, end)
    following = after.end() if after else end
    if text.startswith(_HERMES_CLOSE, following):
        return f"<tool_call>{text}"
    if _HERMES_OPEN.match(text, following):
        return f"<tool_call>{text[:end]}{_HERMES_CLOSE}{text[end:]}"
    return content


def _functions_opened(content: str) -> str:
    """``content`` with the opening tag put back before each Qwen3-Coder call written
    without it but with its closing one, before the first call in both tags: else the
    calls in tags would run and the one before them show as the reply."""
    first = _HERMES_OPEN.search(content)
    if first is None:  # no call in both tags: function_tag_calls reads them
        return content
    pieces, position = [], 0
    for orphan in _ORPHAN_CLOSE.finditer(content, 0, first.start()):
        start = content.rfind("<function=", position, orphan.start())
        if start >= 0:
            pieces += [content[position:start], "<tool_call>"]
            position = start
    return "".join(pieces) + content[position:]


def phi_calls(content: str, names: frozenset[str], cut: bool) -> TextToolCalls:
    def read(_tag: re.Match[str], body: str, unfinished: bool) -> list[ToolCall] | None:
        # An unclosed last tag runs to the end of the reply, where Phi's <|end|> may be.
        body = _unfenced(without_markup_end_tokens(body))
        found = calls_in(body, names, marked=True)
        return cut_call(body, names, marked=True) if found is None and unfinished else found

    return tagged(content, _PHI_OPEN, _PHI_CLOSE, read, cut)


def function_tag_calls(content: str, names: frozenset[str], cut: bool,
                       schemas: Mapping[str, Any] | None = None,
                       after_prose: bool = False) -> TextToolCalls:
    text = _unwrapped(content)
    if not _HERMES_OPEN.search(text):
        # Qwen3-Coder may leave out the opening <tool_call> and still write the closing one.
        text = _ORPHAN_CLOSE.sub(_FUNCTION_CLOSE, text)

    def read(tag: re.Match[str], body: str, unfinished: bool,
             alone: bool = True) -> list[ToolCall] | None:
        closed = text.startswith(_FUNCTION_CLOSE, tag.end() + len(body))
        body = without_markup_end_tokens(body)
        if body.startswith("<parameter="):  # Qwen3-Coder's form, its tool_call tags taken out
            # With its closing tag, which may end a last parameter left unclosed.
            return parameters_call(tag.group(1), body + _FUNCTION_CLOSE * closed,
                                   unfinished=unfinished, schemas=schemas)
        return named_call(tag.group(1), body, unfinished=unfinished, alone=alone,
                          schemas=schemas)

    found = tagged(text, _FUNCTION_OPEN, _FUNCTION_CLOSE, read, cut)
    if _named_in_prose(found, after_prose, lambda: tagged(
            text, _FUNCTION_OPEN, _FUNCTION_CLOSE, partial(read, alone=False), cut)):
        return TextToolCalls(rest=content)
    return found if found.calls else TextToolCalls(rest=content)


def _unwrapped(content: str) -> str:
    """``content`` without the Hermes tags around Llama 3.2's calls, which wrap them and are
    no prose beside them: an opening tag that a function tag follows, and the first closing
    one after that call's own closing tag, before the next opening one. Text inside the tags
    after the calls ("...</function> Done.</tool_call>") stays, as text beside them."""
    pieces, position = [], 0
    for opening in _WRAPPING_OPEN.finditer(content):
        if opening.start() < position:
            continue
        following = _HERMES_OPEN.search(content, opening.end())
        limit = following.start() if following else len(content)
        call_end = content.find(_FUNCTION_CLOSE, opening.end(), limit)
        closing = content.find(_HERMES_CLOSE, max(call_end, opening.end()), limit)
        pieces.append(content[position:opening.start()])
        if closing < 0:  # a last tag left unclosed
            position = opening.end()
            continue
        pieces.append(content[opening.end():closing])
        position = closing + len(_HERMES_CLOSE)
    return "".join(pieces) + content[position:]


def python_tag_calls(content: str, names: frozenset[str], cut: bool,
                     schemas: Mapping[str, Any] | None = None,
                  after_prose: bool = False) -> TextToolCalls:
    def read(segment: str, last: bool) -> list[ToolCall] | None:
        found = call_sequence(segment, names, marked=True, cut=cut and last)
        if found is None:  # a Python call to an offered tool, as Llama writes its built-ins
            found = pythonic_calls(segment, names, cut and last, schemas).calls or None
        return found

    found = after_marker(content, _PYTHON_TAG, read)
    starts = marker_starts(content, _PYTHON_TAG)
    before = content[:starts[-1]].rstrip(" \t") if starts else ""
    opens = not before or before.endswith(LEAD_ENDS)
    then = calls_then_text(content[starts[-1] + len(_PYTHON_TAG):], names) \
        if starts and opens and not found.calls else None
    if then is None:
        return found
    # "<|python_tag|>{...}\nI saved that.": the calls, then a line of prose, as bare JSON is;
    # the tag beginning the reply, a line or a sentence ("Llama writes <|python_tag|>" no)
    calls = content.rstrip()[:-len(then.rest)]
    head = after_marker(calls, _PYTHON_TAG, read)
    if not head.calls or shown_as_example(content, starts[-1], len(calls)):
        return found  # "Here is an example:\n<|python_tag|>{...}\nThat's all it takes."
    return TextToolCalls(head.calls, spliced([head.rest, f" {then.rest}"]))


def mistral_calls(content: str, names: frozenset[str], cut: bool,
                  schemas: Mapping[str, Any] | None = None,
                  after_prose: bool = False) -> TextToolCalls:
    def read(segment: str, last: bool, alone: bool = True) -> list[ToolCall] | None:
        if MISTRAL_ARGS in segment:
            name, arguments = segment.split(MISTRAL_ARGS, 1)
        elif named := _MISTRAL_NAMED.fullmatch(segment):
            name, arguments = named.groups()
        elif offered_name(segment, names) in names:  # "[TOOL_CALLS]get_time": no arguments
            name, arguments = segment, ""
            # At the cut too, when the tool needs none and no other name goes on from it.
            last = last and not whole_without_arguments(segment, names, schemas)
        else:  # a list of call objects, or Python calls ("[TOOL_CALLS]save(content="x")")
            return call_sequence(segment, names, marked=True, cut=cut and last) \
                or pythonic_calls(segment.strip(), names, cut and last, schemas).calls or None
        name = _MISTRAL_CALL_ID.sub("", name).strip()
        if not _MISTRAL_NAME.fullmatch(name):
            return None
        return named_call(name, arguments, unfinished=cut and last, alone=alone,
                          schemas=schemas)

    found = after_marker(content, MISTRAL_CALLS, read)
    if _named_in_prose(found, after_prose, lambda: after_marker(
            content, MISTRAL_CALLS, partial(read, alone=False))):
        return TextToolCalls(rest=content)  # "Mistral writes [TOOL_CALLS]NAME[ARGS]"
    if not found.calls and content.lstrip().startswith(MISTRAL_CALLS):
        return _written_wrong(content, names, read, cut)
    return found


def _written_wrong(content: str, names: frozenset[str],
                   read: Callable[[str, bool], list[ToolCall] | None],
                   cut: bool = False) -> TextToolCalls:
    """The calls of a reply that is nothing but Mistral's markup, some of which does not read
    (``[TOOL_CALLS]core_memory_append[TOOL_CALLS]s``, a brace left out), each such one a call
    with its text as arguments, for running it to tell the model what to write; when another
    call reads, or it names an offered tool. Arguments that are a whole object and then prose
    (``[ARGS]{...} Done.``) are that object, the prose the reply. Else no call, and the reply
    stays as it was."""
    readable, prose = [], []

    def as_written(segment: str, last: bool) -> list[ToolCall]:
        found = read(segment, last)
        readable.append(found is not None)
        if found is not None:
            return found
        named = MISTRAL_WRITTEN.match(segment)
        name, arguments = (named.group(1), named.group(2)) if named else ("", segment)
        named_apart = arguments[:1].isspace()
        if is_prose(segment, names):  # "[TOOL_CALLS] Done.", "[TOOL_CALLS]Noted (saved).": prose
            readable[-1] = False
            prose.append(segment)
            return []
        arguments = _MISTRAL_CALL_ID_ARGS.sub("", arguments.strip(), count=1).strip()
        # An offered name, or one written as a tool's is, with arguments after it or alone
        # ("[TOOL_CALLS]save_note (x)", "[TOOL_CALLS]get_weather"; at the cut, a name may be
        # cut): a call meant, answered to say what is wrong.
        readable[-1] = offered_name(name, names) in names or bool(
            (arguments or not (cut and last)) and name_shaped(
                name, names, called=arguments.startswith(("[", "(", '"')) and not named_apart))
        try:
            value, end = _DECODER.raw_decode(arguments)
        except (ValueError, RecursionError):
            return [ToolCall("", name, arguments)]
        if isinstance(value, dict):
            prose.append(arguments[end:])
            arguments = arguments[:end]
        return [ToolCall("", name, arguments)]

    found = after_marker(content, MISTRAL_CALLS, as_written)
    if not any(readable):
        return TextToolCalls(rest=content)
    return TextToolCalls(found.calls, spliced([found.rest, *(f" {piece}" for piece in prose)]))


def _named_in_prose(found: TextToolCalls, after_prose: bool,
                    amid_prose: Callable[[], TextToolCalls]) -> bool:
    """Whether the calls ``found`` beside prose (or ``after_prose``: thinking) are all
    markup giving no arguments to a tool that needs some ("Llama writes <function=NAME>"), in
    which ``amid_prose``, the same markup read as amid prose, finds no call: an explanation,
    no call. Beside a call with arguments, such markup is a call too, which the tool refuses."""
    return bool(found.calls) and bool(found.rest or after_prose) and not amid_prose().calls


def markup_forms(schemas: Mapping[str, Any] | None,
                 after_prose: bool = False) -> tuple[MarkupForm, ...]:
    """The markup forms, in the order they are tried; ``schemas`` maps an offered tool's name
    to its parameters' JSON schema, which says what Qwen3-Coder's values are, and whether a
    tool needs arguments; with ``after_prose``, the content follows prose (thinking)."""
    return (partial(hermes_calls, schemas=schemas, after_prose=after_prose), phi_calls,
            partial(python_tag_calls, schemas=schemas),
            partial(mistral_calls, schemas=schemas, after_prose=after_prose),
            partial(function_tag_calls, schemas=schemas, after_prose=after_prose))


def _unfenced(body: str) -> str:
    match = FENCE.search(body)
    return match.group(1) if match and not body[: match.start()].strip() else body
