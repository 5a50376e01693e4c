"""What the context window keeps of turns it can no longer hold whole: the offline summary
of them, and their tool calls kept paired with their results (a call without its result, or
a result without its call, is refused by most servers). A ``send_message`` that dispatch
refused was never sent, so neither the summary nor a message read back quotes it."""

from __future__ import annotations

import json
from typing import Any


def extractive_summary(previous: str, messages: list[dict[str, Any]]) -> str:
    """An offline summary: the first sentence of each user message and of each reply.

    A reply is an assistant's plain content or the text it sent with send_message.
    """
    lines = [previous] if previous else []
    refused = refused_calls(messages)
    for message in messages:
        text = (message.get("content") or "").strip() or _sent_text(message, refused)
        if message["role"] not in ("user", "assistant") or not text:
            continue
        first = text.split("\n", 1)[0]
        for mark in (". ", "? ", "! "):
            if mark in first:
                first = first.split(mark, 1)[0] + mark.strip()
                break
        lines.append(f"{message['role']}: {first[:200]}")
    return "\n".join(lines)


def _sent_text(message: dict[str, Any], refused: set[str]) -> str:
    """The text of the replies an assistant message sent with send_message (not those of
    the calls in ``refused``, which sent nothing)."""
    sent = []
    for tool_call in message.get("tool_calls") or []:
        function = tool_call.get("function") or {}
        if function.get("name") != "send_message" or tool_call.get("id") in refused:
            continue
        try:
            arguments = json.loads(function.get("arguments") or "")
        except ValueError:
            continue
        if isinstance(arguments, dict) and isinstance(arguments.get("message"), str):
            sent.append(arguments["message"].strip())
    return "\n".join(t for t in sent if t)


def refused_calls(messages: list[dict[str, Any]]) -> set[str]:
    """The ids of the tool calls among ``messages`` (chat messages or recall rows) whose
    result is an error (``Error:``, tools/dispatch.py): a ``send_message`` among them sent
    nothing."""
    return {m["tool_call_id"] for m in messages if m.get("role") == "tool"
            and m.get("tool_call_id") and (m.get("content") or "").startswith("Error:")}


def with_calls_paired(messages: list[dict[str, Any]],
                      ids: list[int]) -> tuple[list[dict[str, Any]], list[int]]:
    """The window without half a tool call: a result whose call is gone, or a call whose
    result is gone (erased or forgotten since it was saved), which servers refuse.

    A call without its result is dropped from its assistant message; the message keeps
    its text.
    """
    called = {c["id"] for m in messages for c in m.get("tool_calls") or ()}
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    kept_messages, kept_ids = [], []
    for message, message_id in zip(messages, ids, strict=True):
        if message.get("role") == "tool" and message.get("tool_call_id") not in called:
            continue
        calls = message.get("tool_calls")
        if calls and any(c["id"] not in answered for c in calls):
            message = {k: v for k, v in message.items() if k != "tool_calls"}
            paired = [c for c in calls if c["id"] in answered]
            if paired:
                message["tool_calls"] = paired
        kept_messages.append(message)
        kept_ids.append(message_id)
    return kept_messages, kept_ids
