"""Dates in a question, read offline: "last May", "in 2023", "yesterday", "3 weeks ago".

``resolve_dates(text, now)`` turns the first date expression of a question
into a range of days (``DateRange``) relative to ``now``: the moment the
question is asked, which for a memory is its clock (the last message of a
replayed conversation, the wall clock otherwise). Months, years, weekdays and
seasons without a year are the most recent ones not after ``now``; "last May"
is the May of an earlier year when it is May now. Seasons are those of the
northern hemisphere. An expression that needs knowledge of events ("the week
before the trip") resolves only when its anchor is itself a date ("the week
before 9 June 2023").

``asks_when(text)`` says whether a question asks for a time ("When did ...",
"How long ago ...", "What year ..."), and ``mentions_time(text)`` whether a
text states one ("yesterday", "last Friday", "in 2022", "two weeks ago"):
the answer to a when-question is usually in a message that says when.

Rules, not a model: no dependency, and a phrase either resolves exactly or
not at all (``None``), never to a guess.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass

_DAY = 86_400.0
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
                "september", "october", "november", "december")
MONTHS = {name: number for number, full in enumerate(_MONTH_NAMES, start=1)
          for name in {full, full[:3], "sept" if full == "september" else full[:3]}}
WEEKDAYS = {name: number for number, full in enumerate(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
    for name in (full, full[:3])}
# First month of each season, and its length in months (December starts winter).
SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
           "a couple of": 2, "a few": 3, "several": 3}

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY = r"(?P<weekday>" + "|".join(sorted(WEEKDAYS, key=len, reverse=True)) + r")s?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAY_OF_MONTH = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_COUNT = r"(?P<count>\d+|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + ")"
_UNIT = r"(?P<unit>day|week|month|year)s?"


@dataclass(frozen=True)
class DateRange:
    """Whole days from ``start`` (inclusive) to ``end`` (exclusive), Unix seconds, UTC."""

    start: float
    end: float
    phrase: str  # the words it was read from

    def contains(self, stamp: float, slack_days: float = 0.0) -> bool:
        """Whether ``stamp`` falls in the range, or up to ``slack_days`` after its end."""
        return self.start <= stamp < self.end + slack_days * _DAY


def _stamp(day: dt.date) -> float:
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()


def _span(first: dt.date, after_last: dt.date, phrase: str) -> DateRange:
    return DateRange(_stamp(first), _stamp(after_last), phrase)


def _month_start(year: int, month: int) -> dt.date:
    # Months may run past 12 or below 1 here; fold them into the year.
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return dt.date(year, month, 1)


def _months(year: int, month: int, count: int, phrase: str) -> DateRange:
    return _span(_month_start(year, month), _month_start(year, month + count), phrase)


def _week_start(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=day.weekday())


def _latest_month(month: int, today: dt.date, strictly_before: bool) -> int:
    """The year of the most recent ``month`` at or before today (before its month, if strict)."""
    if month < today.month or (month == today.month and not strictly_before):
        return today.year
    return today.year - 1


def _count(text: str) -> int:
    return int(text) if text.isdigit() else NUMBERS[text.lower()]


def _relative(match: re.Match[str], today: dt.date) -> DateRange | None:
    word, phrase = match.group("rel").lower(), match.group(0)
    unit = match.group("unit").lower()
    shift = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1}[word]
    if unit == "week":
        first = _week_start(today) + dt.timedelta(weeks=shift)
        return _span(first, first + dt.timedelta(weeks=1), phrase)
    if unit == "weekend":
        saturday = _week_start(today) + dt.timedelta(days=5, weeks=shift)
        return _span(saturday, saturday + dt.timedelta(days=2), phrase)
    if unit == "month":
        return _months(today.year, today.month + shift, 1, phrase)
    return _span(dt.date(today.year + shift, 1, 1), dt.date(today.year + shift + 1, 1, 1), phrase)


def _ago(match: re.Match[str], today: dt.date) -> DateRange:
    count, unit, phrase = _count(match.group("count")), match.group("unit").lower(), match.group(0)
    if unit == "day":
        day = today - dt.timedelta(days=count)
        return _span(day, day + dt.timedelta(days=1), phrase)
    if unit == "week":
        first = _week_start(today - dt.timedelta(weeks=count))
        return _span(first, first + dt.timedelta(weeks=1), phrase)
    if unit == "month":
        return _months(today.year, today.month - count, 1, phrase)
    year = today.year - count
    return _span(dt.date(year, 1, 1), dt.date(year + 1, 1, 1), phrase)


def _weekday(match: re.Match[str], today: dt.date) -> DateRange:
    wanted = WEEKDAYS[match.group("weekday").lower()]
    back = (today.weekday() - wanted) % 7 or 7  # "last Friday" on a Friday: a week ago
    day = today - dt.timedelta(days=back)
    return _span(day, day + dt.timedelta(days=1), match.group(0))


def _season(match: re.Match[str], today: dt.date) -> DateRange:
    first_month = SEASONS[match.group("season").lower()]
    year = int(match.group("year")) if match.group("year") else None
    if year is None:
        # The most recent season that has begun; "last summer" when it is summer: the one before.
        year = today.year if (today.month >= first_month) else today.year - 1
        if first_month == 12 and today.month <= 2:
            year = today.year - 1
        if (match.group("rel") or "").lower() in ("last", "past", "previous"):
            started = _month_start(year, first_month)
            if _month_start(year, first_month + 3) > today or started > today:
                year -= 1
    return _months(year, first_month, 3, match.group(0))


def _month(match: re.Match[str], today: dt.date) -> DateRange | None:
    groups = match.groupdict()
    month = MONTHS[groups["month"].lower()]
    day = groups.get("day")
    if groups.get("year"):
        year = int(groups["year"])
    else:
        strict = (groups.get("rel") or "").lower() in ("last", "past", "previous")
        year = _latest_month(month, today, strict)
    if day is None:
        return _months(year, month, 1, match.group(0))
    try:
        first = dt.date(year, month, int(day))
    except ValueError:
        return None
    return _span(first, first + dt.timedelta(days=1), match.group(0))


_WORDS = {"yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1}
# Most specific first: the first pattern that matches anywhere decides.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), kind) for pattern, kind in (
        (r"\b" + _YEAR + r"-(?P<m>\d\d)-(?P<d>\d\d)\b", "iso"),
        (r"\b" + _DAY_OF_MONTH + r"\s+(?:of\s+)?" + _MONTH + r",?\s+" + _YEAR + r"\b", "month"),
        (r"\b" + _MONTH + r"\s+" + _DAY_OF_MONTH + r",?\s+" + _YEAR + r"\b", "month"),
        (r"\b" + _MONTH + r",?\s+" + _YEAR + r"\b", "month"),
        (r"\b(?P<word>yesterday|today|tonight|tomorrow)\b", "word"),
        (r"\b" + _COUNT + r"\s+" + _UNIT + r"\s+ago\b", "ago"),
        (r"\b(?P<rel>last|past|previous|this|next)\s+(?P<unit>week|weekend|month|year)\b",
         "relative"),
        (r"\b(?:(?P<rel>last|past|previous|this)\s+|(?:in|during)\s+(?:the\s+)?)"
         r"(?P<season>spring|summer|fall|autumn|winter)(?:\s+(?:of\s+)?" + _YEAR + r")?\b",
         "season"),
        (r"\b(?:last|past|previous|on)\s+" + _WEEKDAY + r"\b", "weekday"),
        (r"\b(?P<rel>last|past|previous)\s+" + _MONTH + r"(?![\w'])", "month"),
        (r"\b" + _DAY_OF_MONTH + r"\s+(?:of\s+)?" + _MONTH + r"(?![\w'])", "month"),
        (r"\b" + _MONTH + r"\s+" + _DAY_OF_MONTH + r"\b(?![:.]\d)", "month"),
        (r"\b(?:in|during|since|of|by)\s+(?:early\s+|late\s+)?" + _MONTH + r"(?![\w'])", "month"),
        (r"\b(?:in|during|since|of|by|year)\s+" + _YEAR + r"\b", "year"),
        (r"(?<![\w-])" + _YEAR + r"(?![\w-])", "year"),
    ))


def resolve_dates(text: str, now: float) -> DateRange | None:
    """The range of days the first date expression in ``text`` names, relative to ``now``
    (Unix seconds); None when the text names no date it can resolve."""
    today = dt.datetime.fromtimestamp(now, dt.UTC).date()
    refused: list[tuple[int, int]] = []  # "31 February 2023" is no date, not "February 2023"
    for pattern, kind in _RULES:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in refused):
                continue
            found = _resolve(kind, match, today)
            if found is not None:
                return _anchored(text, match, found, now)
            refused.append(match.span())
    return None


def _resolve(kind: str, match: re.Match[str], today: dt.date) -> DateRange | None:
    if kind == "iso":
        try:
            day = dt.date(int(match.group("year")), int(match.group("m")), int(match.group("d")))
        except ValueError:
            return None
        return _span(day, day + dt.timedelta(days=1), match.group(0))
    if kind == "word":
        day = today + dt.timedelta(days=_WORDS[match.group("word").lower()])
        return _span(day, day + dt.timedelta(days=1), match.group(0))
    if kind == "year":
        year = int(match.group("year"))
        return _span(dt.date(year, 1, 1), dt.date(year + 1, 1, 1), match.group(0))
    if kind == "month" and match.group("month").lower() == "may" and not (
            match.group("month")[0] == "M" or match.groupdict().get("day")
            or match.groupdict().get("year") or match.groupdict().get("rel")
            or re.match(r"(?i)(in|during|since|of|by)\b", match.group(0))):
        return None  # "may" the verb
    handlers = {"ago": _ago, "relative": _relative, "weekday": _weekday, "season": _season,
                "month": _month}
    return handlers[kind](match, today)


_BEFORE_AFTER = re.compile(
    r"\b(?:the\s+)?(?P<count>\d+|" + "|".join(NUMBERS) + r"|)\s*"
    r"(?:(?P<unit>day|week|weekend|month)s?|" + _WEEKDAY + r")\s+(?P<side>before|after)\s+$",
    re.IGNORECASE)
_SINCE = re.compile(r"\bsince\s+$", re.IGNORECASE)


def _anchored(text: str, match: re.Match[str], found: DateRange, now: float) -> DateRange:
    """The range relative to its anchor: "the week before 9 June 2023", "the Friday after
    it", "since 2016" (up to now)."""
    head = text[: match.start()]
    since = found.phrase.lower().startswith("since")
    if since or _SINCE.search(head):
        phrase = found.phrase if since else "since " + found.phrase
        return DateRange(found.start, max(found.end, now), phrase)
    lead = _BEFORE_AFTER.search(head)
    if lead is None:
        return found
    phrase = lead.group(0) + found.phrase
    if lead.group("weekday"):
        # "the Friday before 15 July": the last Friday strictly before (after) the anchor.
        wanted = WEEKDAYS[lead.group("weekday").lower()]
        anchor = dt.datetime.fromtimestamp(found.start, dt.UTC).date()
        if lead.group("side").lower() == "before":
            day = anchor - dt.timedelta(days=(anchor.weekday() - wanted) % 7 or 7)
        else:
            anchor = dt.datetime.fromtimestamp(found.end, dt.UTC).date()
            day = anchor + dt.timedelta(days=(wanted - anchor.weekday()) % 7)
        return _span(day, day + dt.timedelta(days=1), phrase)
    count = _count(lead.group("count")) if lead.group("count") else 1
    unit_days = {"day": 1, "week": 7, "weekend": 7, "month": 30}[lead.group("unit").lower()]
    days = unit_days * count * _DAY
    if lead.group("side").lower() == "before":
        return DateRange(found.start - days, found.start, phrase)
    return DateRange(found.end, found.end + days, phrase)


_WHEN = re.compile(r"\b(?:when|what\s+(?:year|month|day|date|time)|which\s+(?:year|month|day|"
                   r"date)|how\s+long|since\s+when|how\s+many\s+(?:years|months|weeks|days))\b",
                   re.IGNORECASE)
_TIME_WORDS = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|recently|lately|weekend|"
    r"(?:this|last|next|past)\s+(?:week|month|year|night|time)|"
    + "|".join(sorted(name for name in WEEKDAYS if len(name) > 3)) + "|"
    + "|".join(sorted(SEASONS)) + r")s?\b|(?<![\w-])(?:19|20)\d\d(?![\w-])", re.IGNORECASE)
_CAPITAL_MONTH = re.compile(r"\b(?:" + "|".join(
    sorted({m.capitalize() for m in MONTHS}, key=len, reverse=True)) + r")\b")


def asks_when(text: str) -> bool:
    """Whether ``text`` asks for a time: "When did ...", "How long ...", "What year ..."."""
    return _WHEN.search(text) is not None


#: How many short texts' answers ``mentions_time`` keeps (at most about 8 MB of text): a
#: question about time tests some 60 hits, at about 50 us each, and the same messages
#: come back for question after question.
MENTIONS_CACHE_SIZE = 4096
MENTIONS_CACHED_CHARS = 2000


def mentions_time(text: str) -> bool:
    """Whether ``text`` states a time: a date, a month, a weekday, "yesterday", "2 weeks ago"."""
    if len(text) > MENTIONS_CACHED_CHARS:
        return _states_time(text)
    return _states_time_cached(text)


def _states_time(text: str) -> bool:
    return _TIME_WORDS.search(text) is not None or _CAPITAL_MONTH.search(text) is not None


_states_time_cached = functools.lru_cache(maxsize=MENTIONS_CACHE_SIZE)(_states_time)
