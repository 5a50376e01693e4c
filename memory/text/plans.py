"""Whether a clause in the user's words is a plan for a time to come.

"I'm moving to Berlin next month" and "I start at Acme on Monday" hold every word that
matters of "User lives in Berlin" and "User works at Acme", yet say the user does not
live or work there yet: a present tense with a time to come is a plan. "I moved to Berlin
in June" says it is done, and "I live in Berlin until next month" that it is so now, so a
time to come counts only in the present tense and within the clause that holds it (not
after "and", "until" ...). "Next month, I'm moving to Berlin" puts the time in a part of
its own before the clause: ``is_time_to_come`` tells such a part. A time the fact names
itself ("User starts at Acme in June") is no plan. "I work at Acme, starting next month"
puts it in a part of its own after the clause: ``is_start_to_come`` tells such a part.

"I'm moving to Berlin" without a time is a move under way or to come: it says where the
user is going, not yet where they live ("I'm living in Berlin" does), so a clause whose
subject is moving is a plan too, but of a fact worded so itself ("User is moving to
Berlin", "User moves to Berlin in June": ``a_move_of_its_own``), which it says, for a time
to come too ("I'm moving to Berlin next month"). So is "I'm getting married to Anna": a
wedding to come says no marriage yet ("I got married to Anna" does), but of a fact worded
so itself ("User is getting married to Anna").

"Once I live there, I will relax" names a time by what is to happen then: a clause opened
by "once", "when", "after", "as soon as" ... is no statement that it is so
(``after_it_comes``), but in the past tense ("When I lived in Berlin, ...") it says it
was, as "I used to live in Berlin" does, and a "when" beside a present tense that nothing
puts to come ("I relax when I work at Acme") says it is so each time, but not of a
state that lasts rather than recurs ("When I live in Berlin I bike everywhere" is to come
or supposed). Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.wording import concepts

__all__ = ["a_move_of_its_own", "a_move_under_way", "after_it_comes", "is_start_to_come",
           "is_time_alone", "is_time_to_come", "months_liked", "planned", "times_unnamed",
           "without_times"]

#: "may" in lower case is no month ("this may change").
_MONTHS = ("january|february|march|april|(?-i:May)|june|july|august|september|october"
           "|november|december")
_SEASONS = "spring|summer|autumn|fall|winter"
_UNITS = "days?|weeks?|weekends?|fortnights?|months?|years?"
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
#: A time to come in any tense's sentence: "the next year" and "soon after" are of the past.
_TO_COME = (r"tomorrow|(?<!\bas\s)soon(?!\s+(?:after|afterwards|enough|as)\b)"
            # One day of the week ("on Monday"; "on Mondays" is every week) or weekend.
            rf"|(?:on|this)\s+(?:{_WEEKDAYS})|this\s+weekend"
            r"|(?:the\s+)?end\s+of\s+(?:the|this|next)\s+(?:week|month|year)"
            rf"|(?<!\bthe\s)next\s+(?:{_UNITS}|{_SEASONS}|{_WEEKDAYS}|{_MONTHS})"
            rf"|later\s+(?:this|next)\s+(?:{_UNITS}|{_SEASONS})|this\s+coming\s+\w+"
            r"|in\s+(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few"
            rf"|a\s+couple\s+of|\d+)\s+(?:{_UNITS})"
            # "in June" is to come only in the present tense ("I moved there in June").
            rf"|in\s+(?:{_MONTHS})|this\s+(?:{_SEASONS}|{_MONTHS})")
_TIME_TO_COME = re.compile(rf"\b(?:{_TO_COME})\b", re.IGNORECASE)
_ONLY_TIME = re.compile(rf"\s*(?:{_TO_COME})\s*", re.IGNORECASE)
#: A month or day of the week said as a time ("in June", "since May", "on Monday"), not
#: as someone named June nor a place.
_TIME_NAMED = re.compile(
    rf"\b(?:in|on|since|until|till|last|next|this|every|early|late|mid)\s+"
    rf"(?:{_MONTHS}|(?:{_WEEKDAYS})s?)\b"
    # A year said as a time ("in 2019"), not part of a longer number ("in 2019.5").
    r"|\b(?:in|since|until|till)\s+(?:19|20)\d\d\b(?![.,:/-]\d)", re.IGNORECASE)
#: A time to come from which what the clause before says holds: "starting next month".
_START_TO_COME = re.compile(
    rf"\s*(?:(?:starting|beginning|from|as\s+of|effective)\s+)?(?:{_TO_COME})[\s.!]*",
    re.IGNORECASE)
#: One whose move is under way: "I'm moving to", "we are finally relocating to".
_MOVE_UNDER_WAY = re.compile(
    r"\b(?:i|we|user)(?:['’]m|['’]re|\s+am|\s+are|\s+is)\s+(?:(?:just|finally|now|really"
    r"|actually|officially|also|currently|soon|all)\s+)*(?:moving|relocating|emigrating)\b",
    re.IGNORECASE)
#: One whose wedding is to come: "I'm getting married", "we are finally getting married".
_WEDDING_UNDER_WAY = re.compile(
    r"\b(?:i|we|user)(?:['’]m|['’]re|\s+am|\s+are|\s+is)\s+(?:(?:just|finally|now|really"
    r"|actually|officially|also|soon|both)\s+)*getting\s+married\b", re.IGNORECASE)
#: The concepts by which a fact is itself of a wedding to come: "User is getting married".
_GETTING = frozenset(concepts("getting"))
#: A fact of a move to come in the simple present: "User moves to Berlin in June".
_MOVES = re.compile(r"\buser\s+(?:moves|relocates|emigrates)\b", re.IGNORECASE)
#: Where a clause ends and another, with a time and tense of its own, begins.
_CLAUSES = re.compile(r"\s+(?:and|or|then|so|because|when|where|while|until|till|through)\s+",
                      re.IGNORECASE)
_WORD = re.compile(r"[\w-]+(?:'\w+)?")
#: Words that open a clause naming a time by what happens then: "once I live there".
_ONCE = re.compile(r"\b(once|whenever|when|after|before|until|till|as\s+soon\s+as"
                   r"|by\s+the\s+time)\s+(?=(?:i|we|user)\b)", re.IGNORECASE)
#: Words that put what a statement says in a time to come, or only wish or allow it.
_COMING = frozenset({"will", "shall", "gonna", "going", "would", "could", "might", "should",
                     "must", "can", "cannot", "may", "want", "wanna", "hope", "plan", "need",
                     "expect", "forward"})
#: The negated modals whose stem is not the modal itself ("won't" is "will not").
_NEGATED_STEMS = {"wo": "will", "ca": "can", "sha": "shall"}
_MOVE = re.compile(r"(?:mov|relocat|emigrat)(?:e|es|ing)")
#: Verbs of a state that lasts rather than recurs: "When I live in Berlin" is a time to
#: come or a supposition, never what happens each time.
_LASTING = frozenset({"live", "reside", "own"})
#: Who may say what they plan: the user, or a fact's subject ("User is moving ...").
_SUBJECTS = frozenset({"i", "we", "user"})
#: Words between a subject and its verb that say nothing of its tense.
_ADVERBS = frozenset({"just", "finally", "already", "recently", "eventually", "also", "really",
                      "actually", "officially", "then", "still", "soon", "now"})
_PRESENT = frozenset({"am", "are", "is", "'m", "'re", "'s"})
_PAST = frozenset({"was", "were", "did", "had", "'d", "went", "left", "got", "came", "took",
                   "began", "became", "made", "found", "gave", "quit", "met", "saw", "knew",
                   "ran", "fell", "spoke", "told", "heard", "said", "thought"})
_PERFECT = frozenset({"have", "has", "'ve"})
_PARTICIPLES = frozenset({"been", "gone", "done", "taken", "left", "begun", "become", "come",
                          "made", "found", "given", "quit", "known", "seen", "grown"})


def _past_form(word: str) -> bool:
    return word in _PAST or (len(word) > 4 and word.endswith("ed") and not word.endswith("eed"))


def _participle(word: str) -> bool:
    return word in _PARTICIPLES or _past_form(word)


def _in_present(words: list[str]) -> bool:
    """Whether the verb after the clause's subject is in the present tense, the subject
    left out ("Moving to Berlin next month") read so too: "I'm moving", "I start",
    "I have a job", not "I moved", "I've moved" or "I was moving"."""
    for at, word in enumerate(words):
        subject, _, contracted = word.partition("'")
        if subject not in _SUBJECTS:
            continue
        if contracted:
            verb, after = "'" + contracted, words[at + 1:]
        else:
            rest = [w for w in words[at + 1:] if w not in _ADVERBS]
            verb, after = (rest[0], rest[1:]) if rest else ("", [])
        if verb in _PERFECT:
            following = [w for w in after if w not in _ADVERBS]
            # "I've got a job" has it now; "I've moved" did it.
            return not following or following[0] == "got" or not _participle(following[0])
        return verb in _PRESENT or not _past_form(verb)
    return not (words and _past_form(words[0]))


def _in_past(words: list[str]) -> bool:
    """Whether the verb after the clause's subject is in the past tense: "I lived", "I'd
    moved", "I was living"; not "I live" nor "I've moved" (of a time to come after
    "once")."""
    for at, word in enumerate(words):
        subject, _, contracted = word.partition("'")
        if subject in _SUBJECTS:
            rest = [w for w in words[at + 1:] if w not in _ADVERBS]
            verb = "'" + contracted if contracted else (rest[0] if rest else "")
            return _past_form(verb)
    return False


def after_it_comes(part: str, wanted: set[str]) -> bool:
    """Whether the clause of ``part`` that holds one of ``wanted`` (a fact's concepts)
    opens with "once", "when", "after", "as soon as" ... and is not in the past tense:
    "Once I live there" says the user does not live there yet. A "when" beside a present
    tense says what happens each time, so it is so ("I relax when I work at Acme")."""
    for opening in _ONCE.finditer(part):
        clause = _CLAUSES.split(part[opening.end():])[0]
        words = [w.casefold() for w in _WORD.findall(clause.replace("’", "'"))]
        if (concepts(clause) & wanted and not _in_past(words)
                and not _each_time(part, opening.group(1), words, wanted)):
            return True
    return False


def _each_time(part: str, opener: str, words: list[str], wanted: set[str]) -> bool:
    """Whether a clause opened by ``opener`` of ``words`` says what the user does each
    time: "when" or "whenever", its own verb the fact's, no move ("When I move to
    Berlin, I get a flat" is to come) and no lasting state ("When I live in Berlin I
    bike everywhere" is to come or supposed), beside a statement of the user's in ``part`` that
    nothing puts in a time to come, or wishes for ("When I work at Acme I'll relax", "I
    won't relax", "I look forward to relaxing when I work at Acme")."""
    verb = next((w for w in words[1:] if w not in _ADVERBS), "") if words[:1] in (
        ["i"], ["we"]) else ""
    part_words = [w.casefold() for w in _WORD.findall(part.replace("’", "'"))]
    subjects = sum(w.partition("'")[0] in {"i", "we"} for w in part_words)
    return (opener.casefold() in {"when", "whenever"} and bool(concepts(verb) & wanted)
            and _MOVE.fullmatch(verb) is None and verb not in _LASTING and subjects > 1
            and not any(_puts_to_come(w) for w in part_words))


def _puts_to_come(word: str) -> bool:
    # Denied, a modal still speaks of a time to come or a wish: "When I work at Acme I
    # won't relax" says no more than "I'll relax" that the user works there now.
    stem = word.removesuffix("n't")
    return (_NEGATED_STEMS.get(stem, stem) in _COMING or word in _COMING
            or word.endswith(("'ll", "'d")))


def _of_another_time(time: re.Match[str] | None, wanted: set[str]) -> bool:
    # A time the fact names is no plan: "I start at Acme in June" says "User starts at
    # Acme in June".
    return time is not None and not concepts(time.group()) <= wanted


def times_unnamed(text: str) -> str:
    """``text`` with each month or day said as a time in lower case, so that it names no
    one: "I married her in June" names no June."""
    return _TIME_NAMED.sub(lambda time: re.sub(r"\d", "", time.group().casefold()), text)


#: A month one likes or misses ("I love June", "she hated March"): a time of year. Of
#: someone named so, a false "User is married to June" is the worse error; but one said
#: at once to be someone is her: "I love June, who is my wife.", "I love June. She is my
#: wife."
_MONTH_LIKED = re.compile(
    r"\b(?:(?:love|like|adore|hate|dislike)[sd]?|enjoy(?:s|ed)?|miss(?:es|ed)?"
    rf"|prefer(?:s|red)?)\s+(?P<month>{_MONTHS})\b"
    r"(?!,\s+who\b|[.!]\s+(?:she|he)(?:\s+is|\s+was|['’]s)\s+(?:my|our)\b)",
    re.IGNORECASE)


def months_liked(text: str) -> set[str]:
    """The concepts of the months ``text`` says are liked or disliked: "I love June", not
    "I love June. She is my wife."."""
    return concepts(" ".join(m["month"] for m in _MONTH_LIKED.finditer(text)))


def without_times(text: str) -> str:
    """``text`` without the months and days it says as a time: "We got married in June"
    says "in" of no place."""
    return _TIME_NAMED.sub("", text)


def is_time_alone(part: str) -> bool:
    """Whether ``part`` is only a time to come ("Next month", "This Friday")."""
    return _ONLY_TIME.fullmatch(part) is not None


def is_start_to_come(part: str, wanted: set[str]) -> bool:
    """Whether ``part`` is only a time to come, or one from which something holds
    ("starting next month"), that the fact of concepts ``wanted`` does not name."""
    return _of_another_time(_START_TO_COME.fullmatch(part), wanted)


def a_move_under_way(text: str) -> bool:
    """Whether ``text`` says its subject is moving ("I'm moving to Berlin")."""
    return _MOVE_UNDER_WAY.search(text) is not None


def a_move_of_its_own(fact: str) -> bool:
    """Whether ``fact`` is a move itself, under way or to come ("User is moving to Berlin",
    "User moves to Berlin in June"), which "We're moving to Berlin" states."""
    return a_move_under_way(fact) or _MOVES.search(fact) is not None


def is_time_to_come(part: str, wanted: set[str]) -> bool:
    """Whether ``part`` is only a time to come ("Next month", "In June") that the fact of
    concepts ``wanted`` does not name."""
    return _of_another_time(_ONLY_TIME.fullmatch(part), wanted)


def planned(part: str, wanted: set[str], *, time_near: bool = False,
            moving: bool = False) -> bool:
    """Whether the clause of ``part`` that holds one of ``wanted`` (a fact's concepts; the
    first clause, when none does) says its subject is moving (unless the fact does too,
    ``moving``: then no time to come makes it one) or getting married (unless the fact
    does too), or is in the present tense with a
    time to come in it that the fact does not name, or, with ``time_near``, beside a part
    that is only such a time ("Next month, ...", "..., starting next month")."""
    move_planned = not moving and _MOVE_UNDER_WAY.search(part) is not None
    # "I'm getting married to Anna" is to come, but says "User is getting married ...".
    wedding = not wanted >= _GETTING and _WEDDING_UNDER_WAY.search(part) is not None
    if not (time_near or move_planned or wedding or _TIME_TO_COME.search(part)):
        return False  # the common case, without reading clauses
    clauses = _CLAUSES.split(part)
    clause = next((c for c in clauses if concepts(c) & wanted), clauses[0])
    if a_move_under_way(clause):
        # Of a fact that is a move itself, whenever it is to be: "I'm moving to Berlin
        # next month" says "User is moving to Berlin".
        return not moving
    if wedding and _WEDDING_UNDER_WAY.search(clause):
        return True
    if not (time_near or _of_another_time(_TIME_TO_COME.search(clause), wanted)):
        return False
    return _in_present([w.casefold() for w in _WORD.findall(clause.replace("’", "'"))])
