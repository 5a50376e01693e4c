"""Tool-call ids as a request carries them: nine letters or digits, one per call.

Mistral's chat templates (Mistral 7B v0.3, Nemo, Small, Ministral), as llama.cpp
``--jinja``, LM Studio and other template-driven servers render them, refuse a tool call
or a tool result whose id is not exactly nine letters and digits ("Tool call IDs should
be alphanumeric strings with length 9!"): the request after every tool call failed.
Some servers also give the first call of every reply the same id (``call_0``), so an
agent's history holds several calls under one id, and a result cannot be told apart
from another call's.

Ids mean nothing to a server beyond pairing a call with its result, so each request
sends every call under an alias of that form, and every result under its call's alias.
An id already of that form, seen first, stays as it is. An alias is derived from the
id and how many calls before it in the request had that id, never drawn at random, so
the history reads the same in every request and a server's prompt cache still matches.
What is stored keeps the ids the calls came with.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Sequence
from typing import Any

__all__ = ["with_wire_ids"]

_WIRE_FORM = re.compile(r"[A-Za-z0-9]{9}")
_ALPHABET = string.ascii_letters + string.digits


def with_wire_ids(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with each tool call's id, and its result's ``tool_call_id``, replaced
    by its alias (see the module docstring); the messages given are not changed."""
    times_seen: dict[str, int] = {}
    latest_alias: dict[str, str] = {}  # a result answers the latest call with its id
    taken: set[str] = set()
    out = []
    for message in messages:
        calls = message.get("tool_calls")
        if message.get("role") == "assistant" and isinstance(calls, list) and calls:
            renamed = []
            for call in calls:
                identifier = call.get("id") if isinstance(call, dict) else None
                if not isinstance(identifier, str):
                    renamed.append(call)
                    continue
                occurrence = times_seen.get(identifier, 0)
                times_seen[identifier] = occurrence + 1
                alias = _alias(identifier, occurrence, taken)
                taken.add(alias)
                latest_alias[identifier] = alias
                renamed.append({**call, "id": alias})
            message = {**message, "tool_calls": renamed}
        elif message.get("role") == "tool" and message.get("tool_call_id") in latest_alias:
            message = {**message, "tool_call_id": latest_alias[message["tool_call_id"]]}
        out.append(message)
    return out


def _alias(identifier: str, occurrence: int, taken: set[str]) -> str:
    if occurrence == 0 and _WIRE_FORM.fullmatch(identifier) and identifier not in taken:
        return identifier
    salt = 0
    while True:
        digest = hashlib.sha256(f"{identifier}\0{occurrence}\0{salt}".encode()).digest()
        number = int.from_bytes(digest[:8], "big")
        alias = "".join(_ALPHABET[(number // len(_ALPHABET) ** i) % len(_ALPHABET)]
                        for i in range(9))
        if alias not in taken:
            return alias
        salt += 1
