"""Tool calls that a model wrote as text instead of the server returning them as ``tool_calls``.

A server parses tool calls out of the model's output only when its chat
template knows the model's format; otherwise, and with small models that drift
from it, the call arrives as plain content. These forms are recognised:

- the markup model families write calls in (agent/text_call_markup.py): Hermes / Qwen
  ``<tool_call>{...}</tool_call>`` (or ``<tool_call><function>NAME</function>{...}``),
  Llama 3.1 ``<|python_tag|>{...}``, Llama 3.2
  ``<function=NAME>{...}</function>``, Qwen3-Coder ``<function=NAME><parameter=KEY>value
  </parameter></function>``, Mistral ``[TOOL_CALLS] [...]`` or
  ``[TOOL_CALLS]NAME[ARGS]{...}`` or ``[TOOL_CALLS]NAME(key=value)``, and Phi-4-mini
  ``<|tool_call|>[...]<|/tool_call|>``;
- a bare JSON object ``{"name": ..., "arguments": ...}`` (or a list of them,
  or several one after another) that is the whole content, or that begins it when a line
  break parts it from the text after it (Llama 3.1's call, then "I have saved that.");
- a Python list of calls ``[NAME(key=value, ...), ...]`` that is the whole content (Llama
  3.2's small models and Llama 4; agent/text_call_pythonic.py), parsed, never run;
  positional values (``[NAME("value")]``) take the parameters the offered tool's schema
  declares, in order, when their count leaves no doubt;
- a fenced block (```json ... ```, or labelled ``tool_calls``, on one line or over
  several) holding such an object or list, also written with
  Python's habits (a trailing comma, single quotes, ``True``/``None``: read as a literal,
  never run);
- Gemma's fenced ```tool_code``` block of Python calls (agent/text_call_pythonic.py);
- Mistral's markup after calls of another form, beginning a line or straight after them
  (``<tool_call>{...}</tool_call>[TOOL_CALLS]NAME[ARGS]{...}``): the calls of both; not
  markup an inline code span opens on (``Mistral writes `[TOOL_CALLS]...```), an example.

What wrapped the calls is no reply: a code fence left empty once they are taken out
(```` ```xml<tool_call>...</tool_call>``` ````), the inline code spans a reply's calls are
all of, a marker a fenced call follows (``[TOOL_CALLS] ```json...``` ``), which says an
object holding the calls is calls, prose before it or not, a marker repeated with
nothing after it (``[TOOL_CALLS][...][TOOL_CALLS]``), or ending the reply so straight after
calls of any form or on a line of its own, or one beginning a line of prose after the calls
(``[TOOL_CALLS] Done.``). Markup quoted as inline code in a
sentence is an example (agent/text_call_markup.py).

Bare JSON after prose is not read: it cannot be told from an example the model
gives ("a call looks like: {...}"); nor is JSON the text runs on from on the same line
("{...} is how a call looks"). A fenced block, a tool_code block or markup after
prose is read, as models write their calls that way (Qwen2.5 fences its calls, a lead-in
before them or not); but a fenced call the clause leading into it or the sentence after it
presents as an example ("For example:", "That is an example."), the model not saying it
stores something ("..., so I'll note it:"), is shown, not run (text_call_fences.py).

``arguments`` may be an object or JSON text, and may be called ``parameters``; the OpenAI
item shape ``{"type": "function", "function": {...}}`` counts too, as does an object holding
the calls (``{"tool_calls": [...]}``), when it is the whole reply, bare or fenced. Only names
of the offered tools make calls, so JSON that merely mentions a tool, or echoes a tool's
schema, is not a call (agent/text_call_objects.py); but a reply that is nothing except
call markup makes calls whatever their names, and one to a tool that was not offered is
answered as such. Markup naming such a tool amid prose is an explanation, left as the
reply, as is markup giving no arguments to offered tools that need some, when it makes
no other call ("Llama writes <function=NAME>"); one that needs none is called. Content
that a server HTML-escaped (llama-cpp-python's chatml-function-calling renders
``&lt;tool_call&gt;`` and ``&#34;``) is read unescaped.

A reasoning model's thinking is no reply, and calls inside it are drafts; but a small
model may forget to close its ``<think>`` block and write its call at the end of it
(``<think>The user is allergic, I'll save it. <tool_call>{...}</tool_call>``, then the end
of its turn). ``calls_ending_thinking`` reads such a block no more loosely than a reply:
the calls it ends with run, when nothing but calls follows them, in the forms read after
prose (markup, a fenced block, a tool_code block); bare JSON, a Python list or an object
holding the calls only when it is the whole block, as it must be the whole reply, since
after thinking it cannot be told from an example or a quoted response either. Markup
naming a tool that was not offered, after thinking, is an explanation, as amid a reply's
prose, and so is markup giving no arguments to a tool that needs some. The thinking
before the calls is dropped. A call followed by more thinking is a draft, and a block
that was closed is never read.

With ``cut=True`` (the reply stopped at ``max_tokens``), a call that begins
but never ends is returned too, with its unfinished text as ``arguments``,
so that the caller can see a tool call was cut off rather than take the
fragment for a reply. Such arguments are never valid JSON. A whole call the reply was cut
in the closing tag or end-of-turn token of (``...}</tool_c``, ``...}<|eo``), or in the
closing fence of a fenced call or a tool_code block, is a call, and the start of the tag or
fence no reply; so are the whole calls of a list cut just before its ``]``
(``[TOOL_CALLS][{...}``, ``[NAME(...)``).
After whole calls, one cut before its name (``</tool_call><tool_c``, ``<tool_call>{"na``)
is no reply either: it is returned as a call with no name and its text as arguments (named,
when the whole name of an offered tool is in it: ``<function=NAME>``); so is such an opening
that is the whole reply (``[TOOL_CALLS]``, ``[TOOL_CALLS]send_mes``), not a word that begins
no offered name (``[TOOL_CALLS]Forget``). One
cut before its arguments (``[TOOL_CALLS]NAME[ARGS]``, ``<function=NAME>``) has none, not
``{}``; but the whole name of an offered tool that needs none after ``[TOOL_CALLS]``, which
no other offered name goes on from, is a whole call there too, as it is in a reply not cut.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from tiermem.agent.llm import ToolCall
from tiermem.agent.text_call_cut import (
    cut_opening_alone,
    without_cut_closing,
    without_cut_opening,
)
from tiermem.agent.text_call_fences import fenced_calls, shown_as_example, without_call_wrapping
from tiermem.agent.text_call_markup import markup_forms
from tiermem.agent.text_call_mistral_prose import (
    LEAD_ENDS,
    MISTRAL_CALLS,
    follows_calls,
    marked_prose,
    prose_after_calls,
    without_marker_after_calls,
)
from tiermem.agent.text_call_objects import (
    END_OF_TURN,
    TextToolCalls,
    call_sequence,
    calls_then_text,
    offered_name,
    spliced,
    whole_without_arguments,
    without_end_tokens,
)
from tiermem.agent.text_call_pythonic import pythonic_calls, tool_code_calls
from tiermem.agent.text_call_tags import marker_starts

__all__ = ["TextToolCalls", "calls_ending_thinking", "find_text_tool_calls", "offered_name",
           "offered_names", "offered_parameters", "parse_text_tool_calls"]

_ESCAPED = ("&lt;tool_call&gt;", "&#34;", "&quot;")
#: Where a call the thinking ends with may begin after thinking: call markup or a fence
#: (```json or ```tool_code), the forms a reply is read in after prose. Bare JSON and a
#: Python list count only as the whole block, as they count only as the whole reply.
_CALL_START = re.compile(r"<tool_call>|&lt;tool_call&gt;|<\|tool_call\|>|<function="
                         r"|<\|python_tag\|>|<\|python_start\|>|\[TOOL_CALLS\]|```")
#: The whole name in a call cut before its arguments, which says whose call was cut.
_OPENED_NAME = re.compile(r"<function=([\w.\-]+)>|\[TOOL_CALLS\]\s*([\w.\-]+)\[")
#: A whole tag or marker that opens a call: a call cut after one, after a sentence, was cut
#: before its name ("Sure.\n<tool_call>{\"na"); the start of a tag ("Sure. <tool_c") is text.
_WHOLE_OPENINGS = ("<tool_call>", "<|tool_call|>", "<function=", MISTRAL_CALLS, "<|python_tag|>")
#: A whole name in a tag, the cut before its arguments.
_NAMED_TAG = re.compile(r"(?:<tool_call>\s*)?<function=([\w.\-]+)>?")
#: A name alone after the marker, which may be a whole call at the cut.
_MARKED_NAME = re.compile(r"\[TOOL_CALLS\]\s*([\w.\-]+)")
#: How many of the last such places are tried, and how far back from the end: the calls
#: a model ends with are short, and its thinking may be long.
_MAX_STARTS = 32
_MAX_TAIL = 50_000


def offered_names(tools: Sequence[dict[str, Any]]) -> list[str]:
    """The function names in OpenAI tool schemas."""
    names = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.append(function["name"])
    return names


def offered_parameters(tools: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Each function's parameters schema in OpenAI tool schemas, by its name."""
    schemas = {}
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            schemas[function["name"]] = function.get("parameters")
    return schemas


def parse_text_tool_calls(content: str, tool_names: Collection[str], *,
                          schemas: Mapping[str, Any] | None = None) -> list[ToolCall]:
    """The complete tool calls written as text in ``content``, in order; [] if none."""
    return find_text_tool_calls(content, tool_names, schemas=schemas).calls


def find_text_tool_calls(
    content: str,
    tool_names: Collection[str],
    *,
    cut: bool = False,
    call_id: Callable[[int], str] | None = None,
    schemas: Mapping[str, Any] | None = None,
    after_prose: bool = False,
) -> TextToolCalls:
    """The calls in ``content`` and the text around them (see the module docstring).

    No tools offered means no calls. ``call_id(index)`` names each call (default
    ``text_call_<index>``). ``schemas`` maps an offered tool's name to its parameters'
    JSON schema (``offered_parameters``), which values given by position need. With
    ``after_prose`` (thinking came before ``content``), an object holding the calls is a
    quoted response, unless a call marker comes before it, and markup with no arguments
    names the form, as beside prose. When nothing is found, ``rest`` is the content
    unchanged, but for Mistral's marker beginning it (``[TOOL_CALLS] Done.``), which is left
    out, and markers alone, which leave "".
    """
    names = frozenset(tool_names)
    # An end-of-turn token left after the calls is neither a call nor a reply.
    text = without_end_tokens(content, END_OF_TURN) if names else content
    opened = ""
    if cut:
        text, opened = without_cut_opening(without_cut_closing(text), names)
        named = _MARKED_NAME.fullmatch(opened)
        if named and whole_without_arguments(named.group(1), names, schemas):
            text, opened = text + opened, ""  # "[TOOL_CALLS]get_time": a whole call
    elif names:  # "```json [...]```[TOOL_CALLS]": a marker with nothing after it, no reply
        text = without_marker_after_calls(text)
    found = TextToolCalls(rest=content)
    head, prose = prose_after_calls(text, names) if names else (text, "")
    if prose:  # "...[TOOL_CALLS] Done.": whole calls, then prose, where any cut fell
        found = _find(head, names, False, schemas, after_prose)
        found.rest = spliced([found.rest, f" {prose}"])
    if names and not found.calls:
        found = _find(text, names, cut, schemas, after_prose)
    if names and not found.calls and any(mark in text for mark in _ESCAPED):
        unescaped = _find(html.unescape(text), names, cut, schemas, after_prose)
        if unescaped.calls:
            found = unescaped
    if not found.calls and cut and names and cut_opening_alone(text, names):
        # "[TOOL_CALLS]send_mes", the whole reply: a call cut before its name, no reply
        found.calls, found.rest, opened = [], "", text.strip()
    elif not found.calls and opened.startswith(_WHOLE_OPENINGS) \
            and text.rstrip(" \t").endswith(LEAD_ENDS) and not _names_offered(opened, names):
        found.rest = text.strip()  # "Sure.\n<tool_call>{"na": prose, then a call cut so
    elif not found.calls:  # "[TOOL_CALLS] Done.": the sentence, without the marker
        return TextToolCalls(rest=marked_prose(content, names) if names else content)
    if not prose and MISTRAL_CALLS in text:  # "<tool_call>...</tool_call>[TOOL_CALLS]..."
        found = _mistral_after(text, found, names, cut and not opened, schemas, after_prose)
    if opened:  # a call cut before its arguments: no reply, and the caller learns it was cut
        named = _OPENED_NAME.search(opened)
        name = offered_name(named.group(1) or named.group(2), names) if named else ""
        found.calls.append(ToolCall("", name if name in names else "", opened))
    make_id = call_id or (lambda index: f"text_call_{index}")
    found.calls = [ToolCall(make_id(i), offered_name(c.name, names), c.arguments,
                            from_text=True) for i, c in enumerate(found.calls)]
    return found


def calls_ending_thinking(
    thinking: str,
    tool_names: Collection[str],
    *,
    call_id: Callable[[int], str] | None = None,
    schemas: Mapping[str, Any] | None = None,
) -> TextToolCalls:
    """The calls the text of an unclosed ``<think>`` block ends with (module docstring);
    ``rest`` is always empty, for the thinking is no reply. Only for a reply that ended
    its turn: one cut at max_tokens stopped in the middle of its thinking."""
    names = frozenset(tool_names)
    floor = max(0, len(thinking) - _MAX_TAIL)
    starts = [m.start() for m in _CALL_START.finditer(thinking, floor)][-_MAX_STARTS:]
    if floor == 0 and starts[:1] != [0]:
        starts.insert(0, 0)  # the whole block: bare JSON or a Python list, as a whole reply
    for start in starts:  # the earliest first: all the calls the block ends with
        found = find_text_tool_calls(thinking[start:], names, call_id=call_id,
                                     schemas=schemas, after_prose=bool(thinking[:start].strip()))
        if not found.calls or found.rest:
            continue
        if thinking.startswith("```", start) and shown_as_example(thinking, start, start):
            return TextToolCalls()  # "For example:\n```json{...}```": the form, thought of
        if thinking[:start].strip() and any(c.name not in names for c in found.calls):
            # As in a reply: markup for a tool nobody offered, after prose, is the model
            # explaining a format, not calling.
            return TextToolCalls()
        return found
    return TextToolCalls()


def _names_offered(opened: str, names: frozenset[str]) -> bool:
    """Whether ``opened``, markup the cut left after prose, is a marker or tag and the whole
    name of an offered tool (``[TOOL_CALLS]get_time``), which prose names as well as calls."""
    named = _MARKED_NAME.fullmatch(opened) or _NAMED_TAG.fullmatch(opened)
    return named is not None and offered_name(named.group(1), names) in names


def _find(content: str, names: frozenset[str], cut: bool,
          schemas: Mapping[str, Any] | None, after_prose: bool) -> TextToolCalls:
    def pythonic(text: str, offered: frozenset[str], unfinished: bool) -> TextToolCalls:
        return pythonic_calls(text, offered, unfinished, schemas)

    def tool_code(text: str, offered: frozenset[str], unfinished: bool) -> TextToolCalls:
        return tool_code_calls(text, offered, unfinished, schemas, shown_as_example)

    def fenced(text: str, offered: frozenset[str], unfinished: bool) -> TextToolCalls:
        return fenced_calls(text, offered, unfinished, after_prose)

    for form in (*markup_forms(schemas, after_prose), fenced, tool_code, _bare, pythonic):
        found = form(content, names, cut)
        if found.calls and found.rest and any(offered_name(c.name, names) not in names
                                              for c in found.calls):
            # "Llama writes <function=get_weather>{...}</function>": markup for a tool
            # nobody offered, amid prose, is the model explaining, not calling.
            return TextToolCalls(rest=content)
        if found.calls:
            found.rest = without_call_wrapping(found.rest, content)
            return found
    return TextToolCalls(rest=content)


def _mistral_after(text: str, found: TextToolCalls, names: frozenset[str], cut: bool,
                   schemas: Mapping[str, Any] | None, after_prose: bool) -> TextToolCalls:
    """``found``, the calls of one form, with those of the other when Mistral's markup
    follows calls of another form (``<tool_call>{...}</tool_call>[TOOL_CALLS]NAME[ARGS]{...}``,
    ``[{...}][TOOL_CALLS]...``), the marker beginning a line or straight after them: all are
    calls, the last one cut mid-way with the reply (``cut``), and none the reply, nor what
    wrapped them; so too when the markup, read as the calls, follows prose after the calls
    (``[{...}]``, then "By the way, [TOOL_CALLS]..."). Else ``found`` as it is."""
    starts = marker_starts(text, MISTRAL_CALLS)
    before = text[:starts[0]].rstrip(" \t") if starts else ""
    if not before.strip():
        return found
    head = _find(text[:starts[0]], names, False, schemas, after_prose)
    tail = _find(text[starts[0]:], names, cut, schemas, after_prose)
    def said(calls: list[ToolCall]) -> list[tuple[str, str]]:
        return [(call.name, call.arguments) for call in calls]

    # The calls found are those of one form, before the marker or after it, never both;
    # after prose, the markup's: markup after calls and prose ("Mistral writes ...") shows it.
    kinds = [said(tail.calls)] if not follows_calls(before) else [said(head.calls),
                                                                   said(tail.calls)]
    if not (head.calls and tail.calls) or said(found.calls) not in kinds:
        return found
    return TextToolCalls([*head.calls, *tail.calls],
                         without_call_wrapping(spliced([head.rest, tail.rest]), text))


def _bare(content: str, names: frozenset[str], cut: bool) -> TextToolCalls:
    calls = call_sequence(content, names, marked=False, cut=cut)
    if calls:
        return TextToolCalls(calls, "")
    return calls_then_text(content, names) or TextToolCalls(rest=content)
