"""What a row's text may be for a store to write it: what a snapshot of the memory restores.

The tiers check their input before it reaches a store; these checks hold the store's own
API to the same bounds, so no write leaves a memory whose snapshot restore refuses
(memory/ops/snapshot_models.py). JSON columns are bounded as the text a store keeps,
``json.dumps`` of the value, in both backends.
"""

from __future__ import annotations

import json
from typing import Any

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.store.records import Event, Message, Passage
from tiermem.memory.types import Fact
from tiermem.memory.validation import check_storable


def check_message(message: Message) -> None:
    check_storable(message.content, "message content")
    _check_optional(message.tool_call_id, "message tool_call_id")
    _check_optional(message.tool_name, "message tool_name")
    if message.tool_calls is not None:
        _check_json(message.tool_calls, "message tool_calls")


def check_passage(passage: Passage) -> None:
    check_text(passage.text, "passage text")
    check_storable(passage.source, "passage source")
    _check_json(passage.tags, "passage tags")
    _check_json(passage.metadata, "passage metadata")
    _check_optional(passage.embedder_id, "passage embedder_id")


def check_fact(fact: Fact) -> None:
    check_text(fact.text, "fact text")
    check_storable(fact.source, "fact source")


def check_event(event: Event) -> None:
    check_storable(event.detail, "event detail")


def check_text(text: str, what: str) -> None:
    """A fact's or a passage's text: searched and shown, so never blank."""
    check_storable(text, what)
    if not text.strip():
        raise InvalidInputError(f"{what} is empty; give it some text")


def check_metadata(metadata: dict[str, Any]) -> None:
    _check_json(metadata, "passage metadata")


def _check_optional(value: str | None, what: str) -> None:
    if value is not None:
        check_storable(value, what)


def _check_json(value: Any, what: str) -> None:
    check_storable(json.dumps(value), f"{what} as JSON")
