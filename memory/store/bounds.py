"""What a row may hold for a store to write it: what a snapshot of the memory restores.

The tiers check their input before it reaches a store; these checks hold the store's own
API to the same bounds, so no write leaves a memory whose snapshot restore refuses
(memory/ops/snapshot_models.py): text, times, counts, ids, names and JSON. JSON columns
are bounded as the text a store keeps, ``json.dumps`` of the value, in both backends.
Each check runs before its write, so a refused write leaves the store as it was. What a
row refers to in other rows is checked in memory/store/references.py.
"""

from __future__ import annotations

import contextlib
import json
import math
import numbers
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.store.records import (
    STATE_PREFIX,
    SUPERSEDED_AT,
    Event,
    ForgetRequest,
    HistoryPoint,
    Message,
    Passage,
)
from tiermem.memory.types import DURABILITIES, Fact
from tiermem.memory.validation import (
    EARLIEST_TIME,
    HASH_PATTERN,
    LATEST_TIME,
    MAX_ID,
    MAX_STATE_VALUE_CHARS,
    NAME_PATTERN,
    UNIT_TOLERANCE,
    check_storable,
    integral,
)

ROLES = ("user", "assistant", "tool", "system")
TIERS = ("core", "archival")
OUTCOMES = ("matched", "unmatched", "ambiguous", "failed")
# Fullmatch: ``$`` would also match before a trailing newline.
_NAME = re.compile(NAME_PATTERN)
_HASH = re.compile(HASH_PATTERN)
_FACT_COUNTS = ("entered_core_seq", "access_count", "evictions", "promotions", "cycles",
                "hits_since_eviction")
_POINT_COUNTS = ("tick", "core_facts", "core_size", "durable_in_core", "archival_passages",
                 "recall_messages", "evictions", "promotions")


def check_messages(messages: Sequence[Message]) -> None:
    for message in messages:
        check_message(message)
    _check_embedded(messages, "message embedding")


def check_message(message: Message) -> None:
    """Every field but the vector, which ``check_messages`` checks with the others'."""
    check_count(message.turn, "message turn")
    check_choice(message.role, ROLES, "message role")
    check_storable(message.content, "message content")
    _check_optional(message.tool_call_id, "message tool_call_id")
    _check_optional(message.tool_name, "message tool_name")
    _check_optional(message.embedder_id, "message embedder_id")
    if message.tool_calls is not None:
        _check_json(message.tool_calls, "message tool_calls")
    check_moment(message.created_at, "message created_at")
    check_name(message.status, "message status", "'ok'")


def check_erasure(reason: str, erased_at: float) -> None:
    check_storable(reason, "erasure reason")
    check_moment(erased_at, "erased_at")


def check_passages(passages: Sequence[Passage]) -> None:
    for passage in passages:
        check_passage(passage)
    _check_embedded(passages, "passage embedding")


def check_passage(passage: Passage) -> None:
    """Every field but the vector, which ``check_passages`` checks with the others'."""
    check_text(passage.text, "passage text")
    check_storable(passage.source, "passage source")
    if not isinstance(passage.tags, list) or not all(isinstance(t, str) for t in passage.tags):
        raise InvalidInputError(f"passage tags must be a list of strings, got "
                                f"{passage.tags!r:.80}; give tags like ['ops']")
    _check_json(passage.tags, "passage tags")
    check_metadata(passage.metadata)
    _check_optional(passage.embedder_id, "passage embedder_id")
    check_moment(passage.created_at, "passage created_at")
    if passage.evicted_at is not None:
        check_moment(passage.evicted_at, "passage evicted_at")
    if passage.was_in_core not in (True, False):  # 0 and 1 are equal to them
        raise InvalidInputError(f"passage was_in_core must be True or False, got "
                                f"{passage.was_in_core!r:.40}")
    check_row_id(passage.fact_id, "passage fact_id")
    check_row_id(passage.source_message_id, "passage source_message_id")


def check_fact(fact: Fact, *, stored_text: Callable[[], str | None] | None = None) -> None:
    """A fact to insert, or (given ``stored_text``) the columns an update writes: an
    update leaves its source, creation and origin as stored, which an older version may
    have written in a form no new fact may take (a creation time in milliseconds), so
    they are not checked. Nor is a text the update writes back as stored: an older
    version stored blank and over-long texts, and counting such a fact read must not be
    refused. ``stored_text`` reads it, only for a text that is refused."""
    new = stored_text is None
    try:
        check_text(fact.text, "fact text")
    except InvalidInputError:
        if stored_text is None or stored_text() != fact.text:
            raise
    check_choice(fact.durability, DURABILITIES, "fact durability")
    check_choice(fact.tier, TIERS, "fact tier")
    if new:
        check_storable(fact.source, "fact source")
        check_moment(fact.created_at, "fact created_at")
        if fact.created_tick is not None:
            _check_real(fact.created_tick, "fact created_tick", at_least_zero=True)
        check_row_id(fact.source_message_id, "fact source_message_id")
    if fact.evicted_at is not None:
        check_moment(fact.evicted_at, "fact evicted_at")
    # Readings of the memory's clock: interactions, or Unix seconds on a wall clock.
    for field in ("last_access", "evicted_tick"):
        value = getattr(fact, field)
        if value is not None:
            _check_real(value, f"fact {field}", at_least_zero=True)
    _check_real(fact.last_counted_tick, "fact last_counted_tick", at_least_zero=False)
    for field in _FACT_COUNTS:
        check_count(getattr(fact, field), f"fact {field}")
    check_row_id(fact.passage_id, "fact passage_id")


def check_event(event: Event) -> None:
    check_count(event.tick, "event tick")
    check_name(event.kind, "event kind", "'add'")
    check_row_id(event.fact_id, "event fact_id")
    check_storable(event.detail, "event detail")
    check_moment(event.created_at, "event created_at")


def check_point(point: HistoryPoint) -> None:
    for field in _POINT_COUNTS:
        check_count(getattr(point, field), f"history {field}")
    check_moment(point.created_at, "history created_at")


def check_forget_request(request: ForgetRequest) -> None:
    check_moment(request.created_at, "forget request created_at")
    check_hashes([request.request_hash], "forget request hash")
    check_name(request.mode, "forget request mode", "'exact'")
    check_choice(request.outcome, OUTCOMES, "forget request outcome")
    done = request.forgotten
    for table, ids in (("facts", done.facts), ("passages", done.passages),
                       ("messages", done.messages)):
        for row_id in ids:
            check_row_id(row_id, f"forget request {table} id")
    check_storable(request.detail, "forget request detail")


def check_state(key: str, value: object) -> None:
    """A setting under ``STATE_PREFIX``: what ``set_state`` stores and a snapshot restores.
    Other settings are the store's and the memory's own, which a snapshot holds otherwise.

    A key's length is left to ``set_state``, the one writer of new keys: versions before
    it bounded them stored longer ones, whose values an erasure must still scrub and a
    migrate must still copy (refusing them would keep the erased text, or the memory)."""
    if not key.startswith(STATE_PREFIX):
        return
    name, text = key.removeprefix(STATE_PREFIX), str(value)
    check_storable(name, "state key")
    check_storable(text, "state value", MAX_STATE_VALUE_CHARS)
    try:
        json.loads(text)
    except ValueError:
        raise InvalidInputError(f"state value {text!r:.80} is not JSON text; give the value "
                                f"as JSON, as set_state writes it") from None


def check_text(text: str, what: str) -> None:
    """A fact's or a passage's text: searched and shown, so never blank."""
    check_storable(text, what)
    if not text.strip():
        raise InvalidInputError(f"{what} is empty; give it some text")


def check_metadata(metadata: dict[str, Any]) -> None:
    if not isinstance(metadata, dict):
        raise InvalidInputError(f"passage metadata must be a dict, got "
                                f"{type(metadata).__name__}; give one like {{'owner': 'sre'}}")
    _check_json(metadata, "passage metadata")
    # Archival search shows the engine's mark as a date: a number that is none is refused.
    when = metadata.get(SUPERSEDED_AT)
    if isinstance(when, numbers.Real) and not isinstance(when, bool):
        check_moment(when, f"passage metadata {SUPERSEDED_AT}")


def check_moment(value: Any, what: str) -> None:
    """A time by the wall clock: Unix seconds of a date, as the live API takes (restore also
    reads milliseconds, which older versions stored, but no search could show them)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        with contextlib.suppress(OverflowError):  # an int too large for a float
            if EARLIEST_TIME <= float(value) <= LATEST_TIME:
                return
    raise InvalidInputError(f"{what} is {value!r:.80}, not Unix seconds of a date in the "
                            f"years 1 to 9999; give a time like 1715176560.0 "
                            f"(datetime.timestamp())")


def check_name(value: Any, what: str, example: str) -> None:
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise InvalidInputError(f"{what} is {value!r:.80}, not a name of 1 to 32 lowercase "
                                f"letters or '_'; give one like {example}")


def check_choice(value: Any, choices: tuple[str, ...], what: str) -> None:
    if value not in choices or not isinstance(value, str):
        raise InvalidInputError(f"{what} is {value!r:.80}; give one of "
                                f"{', '.join(repr(c) for c in choices)}")


def check_count(value: Any, what: str) -> None:
    """A whole number from 0 (a float that is one is stored as the integer)."""
    whole = (isinstance(value, numbers.Integral)
             or (isinstance(value, float) and value.is_integer()))
    if isinstance(value, bool) or not whole or not 0 <= value <= MAX_ID:
        raise InvalidInputError(f"{what} is {value!r:.80}, not a whole number from 0 to "
                                f"2**63 - 1; give a count, like 0")


def check_row_id(value: Any, what: str) -> None:
    """None, or the id of a row: a whole number from 1."""
    if value is None:
        return
    number = integral(value)
    if number is None or not 1 <= number <= MAX_ID:
        raise InvalidInputError(f"{what} is {value!r:.80}, not a row id (a whole number from "
                                f"1); give the id the store returned, or None")


def check_hashes(hashes: Iterable[Any], what: str) -> None:
    for value in hashes:
        if not isinstance(value, str) or not _HASH.fullmatch(value):
            raise InvalidInputError(f"{what} is {value!r:.80}, not 64 lowercase hex digits; "
                                    f"give a SHA-256 digest as .hexdigest() writes it")


def check_vectors(vectors: np.ndarray, embedder_id: str | None, what: str) -> None:
    """A vector, or rows of vectors, as they are stored (float32): finite, and of unit
    length as an embedder returns them (or zero, for a text without words)."""
    _check_optional(embedder_id, f"{what} embedder_id")
    rows = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    if rows.size == 0:
        return
    lengths = np.linalg.norm(rows, axis=1)
    wrong = ~np.isfinite(lengths) | ((lengths != 0) & (np.abs(lengths - 1) > UNIT_TOLERANCE))
    if wrong.any():
        at = int(np.argmax(wrong))
        found = (f"has length {float(lengths[at]):.4g}" if np.isfinite(rows[at]).all()
                 else "holds a value that is not finite")
        place = f"{what} {at}" if len(rows) > 1 else what
        raise InvalidInputError(f"{place} {found}; give unit-length vectors "
                                f"(v / np.linalg.norm(v)), or zeros for a text without words")


def _check_embedded(rows: Sequence[Message] | Sequence[Passage], what: str) -> None:
    # One check for all the vectors: numpy's cost is per call, not per row.
    embedded = [row for row in rows if row.embedding is not None]
    if not embedded:
        return
    try:
        vectors = np.stack([np.asarray(row.embedding, dtype=np.float32) for row in embedded])
    except ValueError:  # of several lengths: each is checked alone
        for row in embedded:
            check_vectors(np.asarray(row.embedding), None, what)
        return
    check_vectors(vectors if len(vectors) > 1 else vectors[0], None, what)


def _check_real(value: Any, what: str, *, at_least_zero: bool) -> None:
    finite = (isinstance(value, numbers.Real) and not isinstance(value, bool)
              and math.isfinite(value))
    if not finite or (at_least_zero and value < 0):
        kind = "a number of 0 or more" if at_least_zero else "a finite number"
        raise InvalidInputError(f"{what} is {value!r:.80}, not {kind}; give a reading of "
                                f"the memory's clock, like 1.0")


def _check_optional(value: str | None, what: str) -> None:
    if value is not None:
        check_storable(value, what)


def _not_finite(value: Any) -> bool:
    """Whether ``value`` holds a NaN or an infinity, at any depth."""
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return True
    return False


def _check_json(value: Any, what: str) -> None:
    text = json.dumps(value)
    # The tools refuse what standard JSON cannot hold, and so does the store: a caller
    # reading the memory's JSON with another parser would fail on it. Only text that
    # spells one is encoded again, strictly, to tell it from a string that holds it.
    if ("NaN" in text or "Infinity" in text) and _not_finite(value):
        key = (next((k for k, v in value.items() if _not_finite(v)), None)
               if isinstance(value, dict) else None)
        under = f" under {key!r:.80}" if key is not None else ""
        raise InvalidInputError(f"{what} holds a number that is not finite (NaN or "
                                f"infinity){under}, which JSON cannot hold; give a finite "
                                f"number, or the value as a string like 'NaN'")
    check_storable(text, f"{what} as JSON")
