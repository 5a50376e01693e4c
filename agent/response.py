"""Reading a chat-completions response body into a ``Completion``, trusting none of it.

Servers that call themselves OpenAI-compatible answer in more shapes than the
API documents, and a broken proxy or server can answer with anything at all.
The body is read as plain JSON and checked field by field:

- accepted: ``tool_calls`` items of type ``function`` or ``custom``, the
  deprecated single ``function_call``, arguments sent as a JSON object rather
  than JSON text, content sent as a list of text parts, missing call ids;
- a reasoning model's thinking, when the server leaves it at the start of the
  content (``<think>...</think>``, as Qwen3 and DeepSeek-R1 write it; R1's template
  opens the block in the prompt, so the content may start inside it and close it
  on a line of its own), is dropped: it is no reply, its tool calls are drafts, and
  sent back in every later prompt it would fill the context window. A reply that
  only mentions the tags is left as it is. That the model thought, there or in a
  reasoning field beside the content, is kept (``Completion.thought``), and so is the
  text of a block the model never closed (``Completion.open_thinking``): a small model
  may forget ``</think>`` and write its tool call after its thinking, in the block;

- ``usage`` is bookkeeping: a count that is missing, negative, not a number or
  not finite counts as 0 rather than failing a turn whose answer is fine;
- anything else that is not the documented shape (a body that is not an
  object, ``choices`` that is not a non-empty list, a choice without a
  ``message`` object, ``tool_calls`` that is not a list of objects, a call
  without a name) raises ``MalformedResponseError`` naming the field, which the
  client reports as a ``ProviderError`` of kind ``bad_response``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Callable
from typing import Any

from tiermem.agent.llm import Completion, ToolCall, Usage
from tiermem.agent.server_errors import clip

_MAX_SHOWN = 120
#: The finish reasons of a reply the server stopped before the model ended it: at
#: max_tokens, or by its content filter.
CUT_SHORT = frozenset({"length", "content_filter"})
# Where servers that split a reasoning model's thinking out of the content put it:
# llama-server, LM Studio and DeepSeek's API "reasoning_content", vLLM and Ollama "reasoning".
_REASONING_FIELDS = ("reasoning_content", "reasoning")


class MalformedResponseError(ValueError):
    """The body is not a chat completion; the message names the field that is wrong."""


def parse_completion(body: Any, *, model: str, call_id: Callable[[int], str]) -> Completion:
    """The ``Completion`` in a decoded response body.

    ``model`` stands in when the body names none; ``call_id(index)`` makes an
    id for a tool call that has none (the loop pairs each result with its call).
    """
    try:
        return _parse(body, model, call_id)
    except RecursionError:
        raise MalformedResponseError("a field is nested too deeply to read") from None


def _parse(body: Any, model: str, call_id: Callable[[int], str]) -> Completion:
    if not isinstance(body, dict):
        raise MalformedResponseError(f"the body is {_kind(body)}, not a JSON object")
    choices = body.get("choices")
    if choices is None or choices == []:
        error = body.get("error")
        if error is not None:
            detail = error.get("message", error) if isinstance(error, dict) else error
            raise MalformedResponseError(f"it answered with an error: {_clip(detail)}")
        raise MalformedResponseError("it has no choices")
    if not isinstance(choices, list):
        raise MalformedResponseError(f"'choices' is {_kind(choices)}, not a list")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise MalformedResponseError(f"choices[0] is {_kind(choice)}, not an object")
    message = choice.get("message")
    if not isinstance(message, dict):
        missing = message is None
        raise MalformedResponseError(
            "choices[0] has no 'message'" if missing
            else f"choices[0].message is {_kind(message)}, not an object")

    raw_calls = message.get("tool_calls")
    if raw_calls is None:
        raw_calls = []
    if not isinstance(raw_calls, list):
        raise MalformedResponseError(f"'tool_calls' is {_kind(raw_calls)}, not a list")
    calls = _distinct_ids(
        [_tool_call(raw, index, call_id) for index, raw in enumerate(raw_calls)], call_id)
    legacy = message.get("function_call")
    if not calls and legacy is not None:
        # Older servers still answer with the deprecated single function_call.
        calls.append(_function(legacy, "function_call", call_id(0)))

    finish_reason = choice.get("finish_reason")
    named = body.get("model")
    written = _content(message.get("content"))
    content = without_thinking(written)
    return Completion(
        content=content,
        tool_calls=calls,
        usage=_usage(body.get("usage")),
        model=named if isinstance(named, str) and named else model,
        finish_reason=finish_reason if isinstance(finish_reason, str) else None,
        thought=content != written or any(
            isinstance(message.get(key), str) and message[key].strip()
            for key in _REASONING_FIELDS),
        open_thinking=unclosed_thinking(written),
    )


def _distinct_ids(calls: list[ToolCall], call_id: Callable[[int], str]) -> list[ToolCall]:
    """``calls`` with an id one of them repeats (some servers number every call ``call_0``)
    made up anew: each result is sent back under its call's id, and two calls under one id
    leave the model, or the server's template, unable to tell which result is whose."""
    seen: set[str] = set()
    distinct = []
    for index, call in enumerate(calls):
        if call.id in seen:
            call = dataclasses.replace(call, id=call_id(index))
        seen.add(call.id)
        distinct.append(call)
    return distinct


def _tool_call(raw: Any, index: int, call_id: Callable[[int], str]) -> ToolCall:
    where = f"tool_calls[{index}]"
    if not isinstance(raw, dict):
        raise MalformedResponseError(f"{where} is {_kind(raw)}, not an object")
    given = raw.get("id")
    identifier = str(given) if isinstance(given, str | int) and given != "" else call_id(index)
    if raw.get("function") is None and isinstance(raw.get("custom"), dict):
        custom = raw["custom"]
        return _function({"name": custom.get("name"), "arguments": custom.get("input")},
                         f"{where}.custom", identifier)
    return _function(raw.get("function"), f"{where}.function", identifier)


def _function(raw: Any, where: str, identifier: str) -> ToolCall:
    if not isinstance(raw, dict):
        raise MalformedResponseError(
            f"{where} is missing" if raw is None else f"{where} is {_kind(raw)}, not an object")
    name = raw.get("name")
    if not isinstance(name, str):
        raise MalformedResponseError(f"{where}.name is {_kind(name)}, not a string")
    return ToolCall(id=identifier, name=name, arguments=_arguments(raw.get("arguments")))


def _arguments(value: Any) -> str:
    # Dispatch reads the text and explains any problem to the model; only its type
    # is settled here. A few servers send a JSON object rather than JSON text.
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _content(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        # Content parts: [{"type": "text", "text": "..."}, ...]; other kinds carry no text.
        texts = [part["text"] for part in value
                 if isinstance(part, dict) and isinstance(part.get("text"), str)]
        return "".join(texts) if texts else None
    raise MalformedResponseError(f"the message content is {_kind(value)}, not text")


# The block a reasoning model starts its reply with (to the end, when the reply was cut
# inside it), and the end of one its chat template opened in the prompt: the thinking,
# then "</think>" on a line of its own. A reply that only mentions the tags matches neither.
_LEADING_BLOCK = re.compile(r"\s*<think>(.*?)(</think>|\Z)", re.DOTALL)
_OPENED_IN_PROMPT = re.compile(r"(?:(?!<think>).)*?\n[ \t]*</think>[ \t]*(?:\n|\Z)", re.DOTALL)


def without_thinking(content: str | None) -> str | None:
    """``content`` without the thinking a reasoning model wrote into it (module docstring)."""
    if content is None or "think>" not in content:
        return content
    found = _LEADING_BLOCK.match(content) or _OPENED_IN_PROMPT.match(content)
    return content[found.end():].strip() if found else content


def unclosed_thinking(content: str | None) -> str | None:
    """The text of the ``<think>`` block ``content`` starts with when the block never ends
    (the model forgot ``</think>``, or the reply was cut inside it); None otherwise."""
    if content is None or "<think>" not in content:
        return None
    found = _LEADING_BLOCK.match(content)
    return found.group(1) if found is not None and not found.group(2) else None


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    prompt = _count(raw.get("prompt_tokens"))
    completion = _count(raw.get("completion_tokens"))
    total = _count(raw.get("total_tokens")) or prompt + completion
    return Usage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total)


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    return max(0, int(value))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__)


def _clip(value: Any) -> str:
    return clip(value if isinstance(value, str) else repr(value), _MAX_SHOWN)
