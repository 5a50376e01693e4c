"""Input checks shared by the tiers. Each error says what was wrong and what to send instead."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import math
import numbers
import operator
import re
import time
from collections.abc import Callable
from typing import Any

from tiermem.memory.errors import InvalidInputError

#: Upper bound for one stored text (a message or a passage). Larger inputs are
#: almost always a pasted file, which belongs in archival as several passages.
MAX_TEXT_CHARS = 200_000
#: Upper bound for a search query: the words of a question or a request, not a document.
MAX_QUERY_CHARS = 10_000
# Used with fullmatch: ``$`` would also match before a trailing newline.
_AGENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def clean_text(value: Any, what: str = "text", max_chars: int = MAX_TEXT_CHARS) -> str:
    """Return ``value`` stripped, or raise InvalidInputError explaining the problem."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{what} must be a string, got {type(value).__name__}")
    _check_storable(value, what)
    text = value.strip()
    if not text:
        raise InvalidInputError(f"{what} is empty; send some text")
    if len(text) > max_chars:
        raise InvalidInputError(
            f"{what} is {len(text):,} characters, over the limit of {max_chars:,}; "
            f"split it into smaller pieces"
        )
    return text


def check_label(value: Any, what: str, example: str) -> str:
    """``value`` as given when it is text a store keeps and a snapshot restores (UTF-8,
    no NUL, at most ``MAX_TEXT_CHARS``; empty is allowed), else InvalidInputError."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{what} must be a string ({example}), got {type(value).__name__}")
    check_storable(value, what)
    return value


def check_storable(value: str, what: str, limit: int = MAX_TEXT_CHARS) -> None:
    """Refuse text a snapshot of the memory could not restore: a NUL, a lone surrogate,
    more than ``limit`` characters."""
    _check_storable(value, what)
    if len(value) > limit:
        raise InvalidInputError(
            f"{what} is {len(value):,} characters, over the limit of {limit:,}; "
            f"shorten it or split it into smaller pieces")


def _check_storable(value: str, what: str) -> None:
    """Refuse what SQLite or a snapshot cannot hold as text: a NUL, a lone surrogate."""
    if "\x00" in value:
        raise InvalidInputError(f"{what} contains a NUL byte (at {value.index(chr(0))}); remove it")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{what} is not valid UTF-8 (lone surrogate at position {exc.start}); "
            f"decode the input with errors='replace' before storing it"
        ) from None


def single_line(text: str) -> str:
    """``text`` with every line break a reader may see turned into a space.

    That is each boundary ``str.splitlines`` knows: CR, LF, CRLF, VT, FF,
    the file/group/record separators, NEL, U+2028 and U+2029. Stored text is
    rendered one item a line; a break inside it would let it pose as more.
    """
    return " ".join(text.splitlines())


def validate_agent_name(name: Any) -> str:
    """An agent name is a short slug: ASCII letters, digits, '.', '_' and '-', no path
    parts."""
    if not isinstance(name, str) or not _AGENT_NAME.fullmatch(name) or ".." in name:
        raise InvalidInputError(
            f"invalid agent name {name!r}: use 1-64 ASCII letters, digits, '.', '_' or '-', "
            f"starting with a letter or digit (no '/', '..' or spaces)"
        )
    return name


#: What a stored row's names (a message's status, an event's kind, a forget mode) and
#: hashes look like, and how far a stored vector may be from unit length (embedders return
#: unit rows, or zero for a text without words): the store's writes and a snapshot's
#: restore hold to the same ones.
NAME_PATTERN = r"[a-z_]{1,32}"
HASH_PATTERN = r"[0-9a-f]{64}"
UNIT_TOLERANCE = 1e-3

#: The earliest and latest moments a stored item may carry (Unix seconds): years 1 to 9999,
#: the dates ``datetime`` can show. A time outside them, or a text, would be stored as
#: given and then fail every search result that shows it.
EARLIEST_TIME = -62_135_596_800.0
LATEST_TIME = 253_402_300_799.0


def check_created_at(value: Any, what: str = "created_at") -> float | None:
    """When an item was stored: None (now), or Unix seconds naming a date."""
    if value is None:
        return None
    stamp = _seconds_of_a_date(value)
    if stamp is not None:
        return stamp
    raise InvalidInputError(
        f"{what} must be Unix seconds of a date in the years 1 to 9999, like "
        f"1715176560.0, got {value!r:.80}; convert a date with datetime.timestamp(), "
        f"or leave {what} out to use the current time")


def _seconds_of_a_date(value: Any) -> float | None:
    """``value`` as a float when it is a number of Unix seconds in the years 1 to 9999."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        with contextlib.suppress(OverflowError):  # an int too large for a float
            stamp = float(value)
            if EARLIEST_TIME <= stamp <= LATEST_TIME:
                return stamp
    return None


def seconds_of_stored(stamp: float) -> float:
    """A stored time as Unix seconds. Earlier versions stored some times in milliseconds
    (about 1.7e12 in 2024), which name no date as seconds; a snapshot's restore reads them
    so, and a store reading them so rewrites them in seconds as it updates a row."""
    if EARLIEST_TIME <= stamp <= LATEST_TIME:
        return stamp
    seconds = stamp / 1000
    return seconds if EARLIEST_TIME <= seconds <= LATEST_TIME else stamp


def to_timestamp(value: Any, what: str) -> float | None:
    """Accept None, Unix seconds, a datetime/date, or an ISO-8601 string."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise InvalidInputError(f"{what} must be a date, got a boolean")
    if isinstance(value, (int, float)):
        # NaN compares false with every row's time, so it would match nothing, silently.
        stamp = _seconds_of_a_date(value)
        if stamp is None:
            raise InvalidInputError(
                f"{what} {value!r:.80} is not a date: Unix seconds must fall in the years 1 to "
                f"9999; use ISO format like 2024-05-08, or leave {what} out for no limit")
        return stamp
    if isinstance(value, dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return moment.timestamp()
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC).timestamp()
    if isinstance(value, str):
        try:
            return to_timestamp(dt.datetime.fromisoformat(value.strip()), what)
        except ValueError:
            pass
    raise InvalidInputError(
        f"{what} {value!r:.80} is not a date; use ISO format like 2024-05-08 or "
        f"2024-05-08T13:56, or leave {what} out for no limit")


def end_of_day(value: Any, what: str) -> float | None:
    """Like to_timestamp, but a date without a time means the end of that day, in any
    format that gives one (``2024-05-08``, ``20240508``, ``2024-W19-3``), for inclusive filters.

    The end is the last float before the next midnight, so ``created_at <= end``
    keeps every moment of the day, however fine its fraction of a second.
    """
    stamp = to_timestamp(value, what)
    if stamp is None or not _is_bare_date(value):
        return stamp
    return math.nextafter(stamp + 86_400, -math.inf)


def _is_bare_date(value: Any) -> bool:
    if isinstance(value, dt.date):
        return not isinstance(value, dt.datetime)
    if not isinstance(value, str):
        return False
    try:
        dt.date.fromisoformat(value.strip())  # accepts dates only, no time part
    except ValueError:
        return False
    return True


def check_count(value: Any, name: str) -> int:
    """A count the caller asks for (results, a page number): an int of at least 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
    return value


#: The most results one search returns (a page, or ``query``'s best k).
MAX_RESULTS = 1000


def check_page(page: Any, k: Any) -> tuple[int, int]:
    check_count(page, "page")
    return page, check_results(k)


def check_results(k: Any) -> int:
    """``k``, the results one search returns: from 1 to ``MAX_RESULTS``."""
    check_count(k, "k")
    if k > MAX_RESULTS:
        raise InvalidInputError(f"k is {k}; ask for at most {MAX_RESULTS} results per page")
    return int(k)


def check_flag(value: Any, name: str) -> bool:
    """A yes/no argument: True or False only (a string "no" would read as yes)."""
    if not isinstance(value, bool):
        raise InvalidInputError(f"{name} must be True or False, got {value!r:.40}")
    return value


#: The largest id a store holds: SQLite's and PostgreSQL's integers have 64 bits, and a
#: larger Python int cannot even be sent in a query.
MAX_ID = 2**63 - 1


def check_id(value: Any, what: str, kind: str = "an id") -> int:
    """An id the caller looks something up by, as an int: any integral number the store can
    hold (one that names nothing just finds nothing). A numpy integer, as an array of ids
    gives, is one; a bool, a float or a string is not."""
    number = integral(value)
    if number is None or abs(number) > MAX_ID:
        raise InvalidInputError(f"{what} must be {kind} tiermem returned (an integer below "
                                f"2**63), got {value!r:.80}")
    return number


def check_stored_id(value: Any, what: str, kind: str) -> int:
    """``check_id`` for an id of a stored row, which starts at 1: a negative one would
    else find nothing, where Python's lists count it from the end."""
    number = check_id(value, what, kind)
    if number < 1:
        raise InvalidInputError(f"{what} must be {kind} tiermem returned, and ids start at 1 "
                                f"(a negative one does not count from the end), got {number}")
    return number


def integral(value: Any) -> int | None:
    """``value`` as an int when it is an integral number other than a bool (an int, a numpy
    integer: ``numbers.Integral``), else None. The stores' drivers bind only a plain int."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return operator.index(value)
    return None


def check_message_id(value: Any, what: str = "source_message_id") -> int | None:
    """A message named by its id (the one a fact or passage came from, or where a search
    stops), as an int, or not at all (None)."""
    return None if value is None else check_id(value, what, "a message id")


#: The longest key of stored state: a snapshot holds keys up to this length.
MAX_STATE_KEY_CHARS = 200
#: The longest stored state value, as JSON text: ``set_state`` refuses a longer one and a
#: snapshot restores any value up to it. An agent's saved context (its message ids and
#: summary) can outgrow ``MAX_TEXT_CHARS``; this leaves it ample room while a runaway
#: value still cannot bloat every snapshot.
MAX_STATE_VALUE_CHARS = 10_000_000


def check_state_key(key: Any, longest: int | None = None) -> str:
    """A key of state a layer above stores (``set_state``): a string the store holds as it is,
    of at most ``longest`` characters when given."""
    if isinstance(key, str) and "\x00" not in key and (longest is None or len(key) <= longest):
        with contextlib.suppress(UnicodeEncodeError):
            key.encode("utf-8")
            return key
    limit = f" of at most {longest} characters" if longest is not None else ""
    raise InvalidInputError(
        f"state key must be a string{limit}, like 'summary', with no NUL and no lone "
        f"surrogate; got {key!r:.80}")


def state_json(value: Any) -> str:
    """``value`` as the standard JSON ``get_state`` reads back, of at most
    ``MAX_STATE_VALUE_CHARS`` characters."""
    return _json_of(
        value, "state value", "store dicts with string keys, lists, strings, finite numbers, "
        "booleans and None (a date as an ISO string)", MAX_STATE_VALUE_CHARS,
        "keep large text in archival (archival_insert) and store its id in state, or split "
        "the value across several keys")


def _json_of(value: Any, what: str, fix: str, limit: int, advice: str,
             sort_keys: bool = False) -> str:
    """``value`` as standard JSON text of at most ``limit`` characters; InvalidInputError
    saying ``fix`` when it is no JSON data, ``advice`` when it is too long."""
    try:
        text = json.dumps(value, sort_keys=sort_keys, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidInputError(f"{what} is not JSON data ({exc}); {fix}") from None
    if len(text) > limit:
        raise InvalidInputError(f"{what} is {len(text):,} characters as JSON, over the limit "
                                f"of {limit:,}; {advice}")
    return text


_SURROGATE = re.compile("[\ud800-\udfff]")


def unescaped_json(value: Any, compact: bool = False) -> str:
    """``value`` as JSON text with its characters as they are (``ensure_ascii`` would write
    one non-ASCII character as six), except a lone surrogate, which UTF-8 cannot store;
    ``compact`` leaves out the spaces after "," and ":"."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":") if compact else None)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def check_stored_json(value: Any, what: str, example: str) -> None:
    """Refuse ``value`` unless it is JSON data (string keys, finite numbers) whose JSON text
    fits in ``MAX_TEXT_CHARS``: what the stores and a snapshot's restore accept, so that
    nothing stored makes a snapshot of the memory impossible to restore."""
    _json_of(value, what, f"give {example}, with string keys and finite numbers",
             MAX_TEXT_CHARS, "keep large content in the text itself, or split it",
             sort_keys=True)


def checked_clock(now: Any) -> Callable[[], float]:
    """``now`` (a memory's wall clock) with each reading checked: Unix seconds of a date,
    else InvalidInputError; a NaN stored as a time would fail the write deep in the store."""
    if not callable(now):
        raise InvalidInputError(f"now must be a callable that returns Unix seconds, like "
                                f"time.time, got {type(now).__name__}")
    if now is time.time:
        return now

    def read() -> float:
        value = now()
        stamp = _seconds_of_a_date(value)
        if stamp is None:
            raise InvalidInputError(
                f"the clock given as now returned {value!r:.80}, not Unix seconds of a date "
                f"in the years 1 to 9999; give a callable like time.time")
        return stamp

    return read
