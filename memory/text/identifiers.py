"""Which values of an "X is V" fact name the thing and which say how it is.

A thing is in one state at a time but keeps its name through all of them: "The primary
database is down now" is news about db-01, not a new name for it, while "back up now"
ends "down" and "db-02 now" replaces "db-01". So ``updates.replaces`` needs to tell an
identifier (a name, host, address, region or version: "db-01", "eu-west-1", "10.0.0.5",
"Postgres 16", "AWS") from a state ("down", "degraded", "back up", "read-only", "OK"),
also one said with until when it holds ("down until 5pm", whose digit names nothing).

A status code looks like an identifier, with its digit, but is a state an incident or a
ticket passes through ("sev1", "P2", "severity 3"): "resolved now" ends it. So is a reading
("5%", "200ms", "at 5pm", "4GB"): "The error rate is high now" ends "5%". A word shouted in
capitals is a state when it is a known one or too long for an acronym ("OPERATIONAL",
"IN_PROGRESS"), a name otherwise ("AWS"). Some values are of one kind though only one
looks like a name: two plans ("Pro", "free"; "gold" of a colour is no tier), two values of
a colour ("Gold", "silver"), two teams
("the SRE team", "the platform team"), or a reading and a level ("2%", "high"). Pure
functions over strings.
"""

from __future__ import annotations

import re

__all__ = ["at_other_times", "count_beside_state", "counts_alike", "due_again", "ends_the_time",
           "identifies", "is_state_compound", "keeps_the_day", "names_a_make", "of_one_kind",
           "retimes", "says_when", "sets_the_time", "with_new_day", "with_new_hour", "without_when"]

#: A severity, priority or tier: a state with a number, not a name ("sev1", "P2", "SEV-3").
_STATUS_CODE = re.compile(
    r"(?:sev|severity|p|pri|priority|tier|level|lvl)[- ]?\d{1,2}", re.IGNORECASE)
#: A reading of a measure, a count with its unit, a day or a time of day: how much or
#: when, not which ("5%", "200 ms", "at 5pm", "17:00", "Friday", "$500"); a bare number
#: may be a port or a ticket, so it needs its unit.
_TIME_OF_DAY = r"\d{1,2}(?::\d{2})?\s?(?:am|pm)|\d{1,2}:\d{2}"
#: A count with its unit, in lowercase or in capitals: "42 Elm" is an address, not a reading.
_AMOUNT = r"\d[\d,]*(?:\.\d+)?\s?(?:%|(?-i:[a-zµ]{1,12}|[KMGT]i?B|[KMG]?Hz|[KMB])(?:/[a-z]{1,6})?)"
_READING = re.compile(
    r"(?:(?:at|on|by|until|about|around|over|under|below|above|near)\s+|~)?"
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|[$€£]\d[\d,]*(?:\.\d+)?(?:\s?[a-z]{1,3})?"
    rf"|{_TIME_OF_DAY}|{_AMOUNT})",
    re.IGNORECASE)
#: When a thing happens or is due, a day or a time of day ("at 5pm", "on Friday", "17:00",
#: "at noon", "tomorrow", "next week"), or both ("on Friday at 5pm").
_WHEN_PART = (r"(?:(?:at|on|by|until|from|around|about)\s+)?(?:(?:next|this)\s+)?"
              rf"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|{_TIME_OF_DAY}|noon|midnight)"
              r"|tomorrow|tonight|today|(?:next|this)\s+(?:week|weekend|month)"
              # a part of a day is a time of day: "Monday morning", "in the evening"
              r"|(?:in\s+the\s+|this\s+)?(?:morning|afternoon|evening)|at\s+night")
_WHEN = re.compile(rf"(?:{_WHEN_PART})(?:\s+(?:{_WHEN_PART}))*", re.IGNORECASE)
#: A state that says a thing's time no longer holds ("postponed", "delayed until 6pm",
#: "cancelled", which leaves no time to keep):
#: unlike "stable" or "disabled", it ends the time it was due at; not one that says by
#: how long ("delayed by 30 minutes"), which counts from that time, so it still holds,
#: unless it names the new time too ("delayed by 30 minutes to 6:30pm").
_RETIMED = re.compile(r"(?:(?:been|got)\s+)?(?:postponed|delayed|rescheduled|put\s+off"
                      r"|pushed\s+(?:back|out)|cancell?ed|called\s+off)\b(?:(?=.*\b(?:to|until|till)\s+(?:"
                      rf"{_WHEN_PART}))|(?!.*\b(?:\d+|an?|one|two|three|few"
                      r"|several|half)\s+(?:\w+\s+)?(?:mins?|minutes?|hours?|hrs?|days?"
                      r"|weeks?|months?)\b)).*", re.IGNORECASE)
#: How much of a quantity there is ("2%", "about 300 ms", "5k", "5 errors/min"), in a unit of
#: measure: a level in words ("high") gives way to it, where a time ("5pm"), a count of
#: things ("5 nodes") or how long something takes ("45 minutes") says something else, as a
#: cluster is stable at any size and a build however long it runs.
_MEASURE_UNIT = (r"(?:%|(?-i:[KMB]|k)|(?:[kmgt]i?b|[kmg]?hz|[kmg]?bps|ms|µs|us|ns|s|secs?"
                 r"|seconds?|rps|qps|rpm|tps|iops|x|percent|pct|degrees?|dollars?|euros?)"
                 r"(?:/[a-z]{1,6})?|[a-z]{1,12}/[a-z]{1,6})")
_QUANTITY = re.compile(
    r"(?:(?:about|around|over|under|below|above|near)\s+|~)?"
    rf"\d[\d,]*(?:\.\d+)?\s?{_MEASURE_UNIT}", re.IGNORECASE)
#: A number with a word after it that is no unit of measure nor a time: a count of things
#: ("5 nodes") or how long something takes ("45 minutes").
_COUNT = re.compile(rf"(?!(?:{_TIME_OF_DAY})$)\d[\d,]*(?:\.\d+)?\s?(?-i:[a-z]{{1,12}})",
                    re.IGNORECASE)
#: A reading after a state, saying until when or for how long it holds ("down until 5pm",
#: "degraded for 2 hours", "up since Monday"): its digit is no part of a name.
_WHEN_OR_HOW_LONG = re.compile(
    r"\s+(?:until|till|since|for|from|after|before|by|at|around|about)\s+"
    rf"(?:{_READING.pattern})(?=\s|$)", re.IGNORECASE)
#: Acronyms ("AWS", "GCP", "NASA") are short: a longer word in capitals is a state shouted
#: ("OPERATIONAL", "QUEUED"), as a status page writes it.
_LONGEST_ACRONYM = 4
#: Short states that monitoring and status pages write in capitals; any other short word in
#: capitals alone ("AWS", "GCP") is taken for a name, as dropping a name costs more than
#: keeping a stale state.
_STATES_IN_CAPITALS = frozenset({
    "ok", "up", "down", "on", "off", "red", "live", "open", "done", "idle", "busy", "full",
    "slow", "fail", "pass", "new", "lost", "hold", "dead", "high", "low", "late",
})
#: "a ThinkPad", "an Audi": a make or model is named with its article, and stays through
#: every state ("fast", "broken") as a host's name does.
_MAKE_ARTICLE = re.compile(r"^an?\s+(?=(?-i:[A-Z]))", re.IGNORECASE)
#: Words that make a hyphenated lowercase value a state ("read-only", "up-to-date",
#: "out-of-sync", "half-full"), where "db-primary" or "us-east" is a host or a region.
_STATE_PARTICLES = frozenset({
    "only", "up", "down", "to", "of", "off", "on", "out", "in", "over", "under", "back",
    "half", "non", "self", "well", "at",
})


def is_state_compound(value: str) -> bool:
    """Whether ``value`` is lowercase words joined by hyphens that says how something is
    ("read-only", "up-to-date"), not a host's or region's name ("db-primary")."""
    return (re.fullmatch(r"[a-z]+(?:-[a-z]+)+", value) is not None
            and any(part in _STATE_PARTICLES for part in value.split("-")))


def names_a_make(value: str) -> bool:
    """Whether ``value`` is a make or model with its article ("a ThinkPad", "a Pixel 8"),
    not a kind of thing ("a nurse", "a replica")."""
    return _MAKE_ARTICLE.match(value.strip()) is not None


def without_when(value: str) -> str:
    """A state without until when or for how long it holds ("down" of "down until 5pm"),
    whose digit names nothing; a name keeps all of it ("db-01 until 5pm")."""
    return _WHEN_OR_HOW_LONG.sub("", value) if value[:1].islower() else value


#: A size in bytes ("500GB", "2 TiB"): what a disk holds or can hold, not how it is.
_SIZE = re.compile(r"(?:(?:about|around|over|under)\s+|~)?\d[\d,]*(?:\.\d+)?\s?"
                   r"(?:[kmgtp]i?b|bytes?)", re.IGNORECASE)


def count_beside_state(new: str, old: str) -> bool:
    """Whether one of two values counts things or time ("5 nodes", "45 minutes") or is a
    size ("500GB") and the other says how the thing is in words ("degraded", "empty"): a
    cluster is degraded at any size, and a 500GB disk may be empty, so neither ends the
    other, whichever is told first."""
    values = [value.strip(" .") for value in (new, old)]
    counts = [(_COUNT.fullmatch(value) is not None and _QUANTITY.fullmatch(value) is None)
              or _SIZE.fullmatch(value) is not None for value in values]
    worded = [re.search(r"\d", value) is None for value in values]
    return (counts[0] and worded[1]) or (counts[1] and worded[0])


#: A count said in words ("five nodes", "a dozen nodes", "half an hour").
_COUNT_IN_WORDS = re.compile(
    r"(?:(?:an?|half|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty"
    r"|thirty|forty|fifty|hundred|thousand|dozen|few|several|couple|of)\s+)+(?-i:[a-z]{1,12})",
    re.IGNORECASE)
#: A length of time in any unit: "an hour" counts what "45 minutes" does.
_LENGTH_OF_TIME = re.compile(r"(?:sec|second|min|minute|hr|hour|day|week|month|year)s?",
                             re.IGNORECASE)


#: A count of nothing left, said as a state.
_EMPTY = re.compile(r"(?:(?:now|completely|totally|all)\s+)?empty|drained|cleared",
                    re.IGNORECASE)


def counts_alike(new: str, old: str) -> bool:
    """Whether two values count one thing, in digits or in words ("five nodes" and "3
    nodes", "an hour" and "45 minutes"), so the new count ends the old."""
    values = [new.strip(" ."), old.strip(" .")]
    if _EMPTY.fullmatch(values[0]) or _EMPTY.fullmatch(values[1]):
        # "empty" counts none of anything: "The queue is empty" ends "... is 500 jobs".
        other = values[1] if _EMPTY.fullmatch(values[0]) else values[0]
        return (_COUNT_IN_WORDS.fullmatch(other) is not None
                or (_COUNT.fullmatch(other) is not None and _QUANTITY.fullmatch(other) is None))
    counted = []
    for value in values:
        if _COUNT_IN_WORDS.fullmatch(value) is None and (
                _COUNT.fullmatch(value) is None or _QUANTITY.fullmatch(value) is not None):
            return False
        last = value.rpartition(" ")[2] or value.lstrip("0123456789.,")
        counted.append("time" if _LENGTH_OF_TIME.fullmatch(last)
                       else last.casefold().removesuffix("s"))
    return counted[0] == counted[1]


def says_when(value: str) -> bool:
    """Whether ``value`` says when a thing happens ("at 5pm", "on Friday", "at noon",
    "tomorrow"): how it is ("stable") or what it is says something else, so neither ends
    the other."""
    return _WHEN.fullmatch(value.strip(" .")) is not None


#: Words that say which day, and those that say the hour of one.
_DAY = re.compile(r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow|tonight|today|week"
                  r"|weekend|month", re.IGNORECASE)
#: A part of the day is an hour of it too: "in the morning now" moves "on Friday at 3pm"
#: within Friday, as "at noon now" does.
_HOUR_WORD = rf"(?:{_TIME_OF_DAY}|noon|midnight|morning|afternoon|evening|night)\b"
_HOUR = re.compile(rf"\b{_HOUR_WORD}", re.IGNORECASE)


def keeps_the_day(new: str, old: str) -> bool:
    """Whether ``new`` says only the hour ("at noon") and ``old`` only the day ("on
    Friday"): a thing moved within its day is still due that day, so the day holds."""
    return (says_when(new) and says_when(old) and _DAY.search(new) is None
            and _DAY.search(old) is not None and _HOUR.search(old) is None)


#: The hour of a time, with the "at" before it ("at 3pm" of "on Friday at 3pm").
_AT_HOUR = re.compile(rf"(?:\b(?:at|in\s+the)\s+)?\b{_HOUR_WORD}", re.IGNORECASE)
#: One day said alone ("on Monday", "tomorrow"): a week or a month is no day to keep an hour on.
_ONE_DAY = re.compile(r"(?:on\s+)?(?:(?:next|this)\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day"
                      r"|tomorrow|today", re.IGNORECASE)


def with_new_hour(new: str, old: str) -> str | None:
    """``old``, a day with its hour ("on Friday at 3pm"), at the hour ``new`` says alone
    ("at noon"): "on Friday at noon", for a thing moved within its day is still due that
    day. None unless ``new`` says only an hour and ``old`` a day and one hour."""
    new, old = new.strip(" ."), old.strip(" .")
    if not (says_when(new) and says_when(old)) or _DAY.search(new) or not _DAY.search(old):
        return None
    if _HOUR.search(new) is None or len(_AT_HOUR.findall(old)) != 1:
        return None
    return _AT_HOUR.sub(lambda _: new, old)


def with_new_day(new: str, old: str) -> str | None:
    """``old``, a day with its hour ("on Friday at 3pm") or an hour alone ("at 3pm"), on
    the day ``new`` says alone ("on Monday"): "on Monday at 3pm", for a thing moved to a
    day keeps its hour unless a new one is said. None unless ``new`` is one day and
    ``old`` one hour, with a day or without."""
    new, old = new.strip(" ."), old.strip(" .")
    hours = _AT_HOUR.findall(old)
    if _ONE_DAY.fullmatch(new) is None or not says_when(old) or not (
            _DAY.search(old) or _AT_HOUR.fullmatch(old)):
        return None
    return f"{new} {hours[0].strip()}" if len(hours) == 1 else None


#: A delay by whole days or more ("delayed by 2 days", "pushed back a week"): the day it
#: was due no longer holds, though the hour it was due at may.
_DELAYED_BY_DAYS = re.compile(
    r"(?:(?:been|got)\s+)?(?:postponed|delayed|pushed\s+(?:back|out)|put\s+off)\s+(?:by\s+)?"
    r"(?:\d+|an?|one|two|three|four|five|six|seven|a\s+few|few|several|a\s+couple\s+of)\s+"
    r"(?:days?|weeks?|months?)", re.IGNORECASE)


#: A cancellation of one occasion ("cancelled today", "called off this week"): the thing
#: is still due when it was on the others, as a standup at 9am is; "cancelled from Monday"
#: holds from then on.
_CANCELLED_ONCE = re.compile(
    rf"(?:cancell?ed|called\s+off)\s+(?:for\s+)?(?P<when>(?!from\b){_WHEN.pattern})",
    re.IGNORECASE)
_PREPOSITION = re.compile(r"\b(?:at|on|by|until|from|around|about|in|the)\b", re.IGNORECASE)


def _another_occasion(when: str, old: str) -> bool:
    """Whether a cancellation ``when`` ("today", "on Friday") may be of an occasion other
    than the one ``old`` is due at: "on Friday" cancels a meeting "on Friday at 3pm"."""
    return not all(re.search(rf"\b{re.escape(word)}\b", old, re.IGNORECASE)
                   for word in _PREPOSITION.sub(" ", when).split())


def ends_the_time(new: str, old: str) -> bool:
    """Whether the state ``new`` ends the time ``old`` says a thing is due at: it is no
    longer due then ("postponed", "cancelled"; not "cancelled today", one occasion), or a
    delay of days moved its day ("delayed by 2 days" ends "on Friday"; one of minutes
    counts from "at 6pm" and leaves it)."""
    once = _CANCELLED_ONCE.fullmatch(new.strip(" ."))
    if not says_when(old) or (once is not None and _another_occasion(once["when"], old)):
        return False
    return retimes(new) or (_DELAYED_BY_DAYS.fullmatch(new.strip(" .")) is not None
                            and _DAY.search(old) is not None)


#: A cancellation, which no new time takes back: "back on" does (memory/text/resumptions.py).
_CANCELLED = re.compile(r"(?:(?:been|got)\s+)?(?:cancell?ed|called\s+off)\b", re.IGNORECASE)


def sets_the_time(new: str, old: str) -> bool:
    """Whether the time ``new`` ("at 5pm") is the one a thing ``old`` says was put off
    ("postponed", "rescheduled") is now due at: a postponement waits for a new time, and
    once one is said it no longer holds. One that says a time of its own ("postponed to
    Friday") is left, as "at 5pm" may be the hour of that day; a cancellation is not put
    off but called off, so a time alone leaves it."""
    old = old.strip(" .")
    return (says_when(new) and retimes(old) and _CANCELLED.match(old) is None
            and _WHEN.search(old) is None)


def due_again(new: str, old: str) -> bool:
    """Whether the time ``new`` ("at 5pm"), said as a change, puts back on a thing ``old``
    says is called off ("cancelled", not "cancelled today", one occasion): it is due then
    now, as "back on at 5pm" says; kept, core would say it is both."""
    old = old.strip(" .")
    return says_when(new) and _CANCELLED.match(old) is not None and _WHEN.search(old) is None


#: A state said of one time ("busy in the evening", "closed on Sunday"); not one said with
#: until when it holds ("down until 5pm"), which ends at that time rather than recurring.
_STATE_AT = re.compile(
    r"(?P<state>\S.*?)" + "".join(rf"(?<!\b{word})"
                                 for word in ("until", "till", "by", "from", "since"))
    + rf"\s+(?P<when>(?!(?:until|till|by|from|since)\b)(?:{_WHEN.pattern}))",
    re.IGNORECASE)


def at_other_times(new: str, old: str) -> bool:
    """Whether ``new`` and ``old`` each say how a thing is at a time of its own ("closed on
    Sunday", "busy in the evening"): a gym closed on Sunday may still be busy in the
    evening, so neither ends the other; at one time ("quiet in the evening") they do."""
    whens = []
    for value in (new, old):
        said = _STATE_AT.fullmatch(value.strip(" ."))
        if said is None or says_when(said["state"]) or says_when(value):
            return False  # a time alone ("on Friday at 3pm") is when, not how
        whens.append(" ".join(said["when"].casefold().removeprefix("on ").split()))
    return whens[0] != whens[1]


def retimes(value: str) -> bool:
    """Whether ``value`` says a thing is no longer due when it was ("postponed", "delayed
    until 6pm"), so it ends the time it was due at ("at 5pm")."""
    return _RETIMED.fullmatch(value.strip(" .")) is not None


def identifies(value: str) -> bool:
    """Whether ``value`` names what a thing is rather than how it is: a word in capitals
    with lowercase after ("Postgres 16", "Ana"), a digit ("db-01", "10.0.0.5"), words
    joined by a dot, colon, slash or hyphen ("api.acme.io", "db-primary"), an acronym that
    is no known state ("AWS", not "DOWN" or "OPERATIONAL"), or a make with its article ("a
    ThinkPad"); never a status code ("sev1") or a reading ("5%", "at 5pm"), nor a state
    said with until when it holds ("down until 5pm")."""
    value = without_when(_MAKE_ARTICLE.sub("", re.sub(r"^the\s+", "", value.strip(" ."),
                                                      flags=re.IGNORECASE)))
    if (not value or _STATUS_CODE.fullmatch(value) or _READING.fullmatch(value)
            or is_state_compound(value) or re.fullmatch(r"[A-Z]+(?:_[A-Z]+)+", value)):
        return False
    if re.fullmatch(r"[A-Z]+", value):
        return (len(value) <= _LONGEST_ACRONYM
                and value.casefold() not in _STATES_IN_CAPITALS)
    return re.search(r"[\d@]|^[A-Z]|\w[-./:_]\w", value) is not None


#: Plans and tiers a product sells, written in capitals or not ("Pro", "free"): one ends
#: another as a name ends a name, though "free" alone looks like a state.
_TIERS = frozenset({
    "free", "trial", "basic", "starter", "standard", "plus", "pro", "professional", "premium",
    "team", "teams", "business", "enterprise", "personal", "hobby", "developer", "growth",
    "scale", "ultimate", "essentials", "bronze", "silver", "gold", "platinum",
})
#: What a product sells by tier, and what holds it ("My account is Pro"): only a value of
#: one of these, or one said with its noun ("the Pro plan"), is a tier, as "gold" is a
#: colour and "Pro" a laptop's model.
_TIERED = frozenset({"plan", "tier", "edition", "subscription", "license", "licence",
                     "membership", "package", "account", "workspace", "org", "organization",
                     "organisation"})
_TIER = re.compile(r"(?:the\s+)?(?P<tier>[\w-]+)(?:\s+(?P<noun>plan|tier|edition|subscription))?",
                   re.IGNORECASE)
#: "the SRE team": a thing named by its noun after "the" and words that single it out; one
#: with a name of its own ("the db-01 host") keeps it through another's.
_THE_NOUN = re.compile(r"the(?:\s+[a-z]+)+\s+(?P<noun>(?-i:[a-z]+))", re.IGNORECASE)

#: Colours, which a capital makes no name when a colour is what they are of: "The colour is
#: Gold" and "... silver" are two values of one attribute.
_COLOURS = frozenset({
    "red", "orange", "yellow", "green", "blue", "purple", "violet", "pink", "brown", "black",
    "white", "grey", "gray", "gold", "silver", "beige", "navy", "teal", "turquoise", "cyan",
    "magenta", "maroon", "crimson", "amber", "bronze", "ivory", "cream", "lilac", "indigo",
})
#: How high a quantity is, said in words, which a reading of it ("2%", "300 ms") gives anew.
_LEVEL = re.compile(r"(?:(?:very|too|quite|really|still|extremely|unusually)\s+)?(?:high|low"
                    r"|elevated|normal|stable|spiking|rising|falling|dropping|climbing|nominal)",
                    re.IGNORECASE)


def of_one_kind(new: str, old: str, attribute: str) -> bool:
    """Whether two values of a thing's one ``attribute`` ("plan", "error rate") are two of
    one kind, though one looks like a name and the other not: two tiers of a plan ("Pro",
    "free"), two values of a colour however written ("Gold", "silver"), two things named by one noun
    ("the SRE team", "the platform team"), or a reading and a level in words ("2%",
    "high"), so the new one ends the old."""
    values = [value.strip(" .") for value in (new, old)]
    if (re.search(r"\bcolou?r$", attribute, re.IGNORECASE)
            and all(value.casefold() in _COLOURS for value in values)):
        return True  # of a colour only: "The cat is Amber" names her, whatever her fur
    tiers = [_TIER.fullmatch(value) for value in values]
    of_tiers = (attribute.rpartition(" ")[2].casefold() in _TIERED
                or any(match is not None and match["noun"] for match in tiers))
    if of_tiers and all(match is not None and match["tier"].casefold() in _TIERS
                        for match in tiers):
        return True
    readings = [_QUANTITY.fullmatch(value) is not None for value in values]
    levels = [_LEVEL.fullmatch(value) is not None for value in values]
    if (readings[0] and levels[1]) or (readings[1] and levels[0]):
        return True
    nouns = [_THE_NOUN.fullmatch(value) for value in values]
    return nouns[0] is not None and nouns[1] is not None and nouns[0]["noun"] == nouns[1]["noun"]
