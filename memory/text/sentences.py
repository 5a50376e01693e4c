"""Sentence splitting and machine-text detection for the offline fact extractor.

Everything here is a pure function over strings; the regular expressions are
compiled once at import.

``split_sentences`` cuts the text at ``. ! ? ;`` followed by whitespace or the
end, and at newlines. A dot not followed by whitespace never ends a sentence,
so decimals (3.5, 99.95%), versions (v1.2.3), IPs, hostnames
(eu-west-1.example.com) and paths (/var/log/app.log) stay whole. Known
abbreviations (e.g., i.e., Dr., Mr., vs., St.) and single initials do not end
a sentence, but for a street's "St." or "Dr." before a word that opens one ("3 Pine St. My
phone is ...", "5 Elm St. No wait, ...", not "St. Louis" or "Dr. No", nor "and my PIN" or
"but keep my PIN" in a request to forget or to remove); a few (etc., a.m., U.S.) end one
only when a capitalised word follows. A unit's dot after a number ("300 ms.", "2 in.") ends
one unless the measure goes on ("6 ft. 2 in. tall"). A bullet line ("- x", "* x", "1. x")
is its own sentence, with the marker removed. Fragments without a letter or digit are dropped.

``machine_cue`` recognises machine text, which is never split: a line
starting with a shell prompt ("$ ", "> "); a line starting with kubectl,
helm, systemctl or journalctl, or with ssh, grep, tail or curl followed by a
flag, a path, a URL or user@host; or a line carrying both a timestamp
(HH:MM:SS or ISO) and an upper-case log level (ERROR, WARN, ...). Semicolons
inside such a line do not split it.

``strip_terminator`` removes a sentence's closing punctuation, but keeps the
dot of an abbreviation ("12 Elm St.") because it belongs to the word.

``chunk_text`` cuts a long text into pieces of a bounded size for filing: at
the last paragraph break, line end or sentence end that fits, else at a
space, and only as a last resort inside a word.
"""

from __future__ import annotations

import re

from tiermem.memory.text.forget_openings import FORGET_NAMED, FORGET_OPENING

__all__ = [
    "CLOSERS",
    "HAS_ALNUM",
    "TIMESTAMP",
    "chunk_text",
    "machine_cue",
    "split_sentences",
    "strip_terminator",
]

# ---------------------------------------------------------------------------
# Sentence splitting

_BULLET = re.compile(r"^(?:[-*•+]|\d{1,3}[.)])\s+")
# Anchored to the start of a run of terminators and possessive, so a long run of dots
# is scanned once rather than once per dot.
_TERMINATOR = re.compile(r"(?<![.!?;…])[.!?;…]++[\"'”’)\]]*+(?=\s|$)")
#: Closing quotes and brackets that may follow a sentence's terminator.
CLOSERS = "\"'”’)]"
_NEXT_VISIBLE = re.compile(r"\s*(\S)")
#: Matches a letter or digit; text without one is not a sentence or a fact.
HAS_ALNUM = re.compile(r"[^\W_]")
_DOTTED_INITIALISM = re.compile(r"(?:[^\W\d_]\.){2,}")

# These precede more of the same sentence (a name, an example), so their dot never ends it.
_NEVER_SPLIT = frozenset(
    {"e.g.", "i.e.", "eg.", "ie.", "dr.", "mr.", "mrs.", "ms.", "prof.", "st.", "vs.", "cf.",
     "approx.", "fig.", "no.", "sgt.", "capt.", "lt.", "mt.", "ft."}
)
# These often close a sentence too, so only a capitalised next word makes their dot a boundary.
_SPLIT_IF_CAPITAL_FOLLOWS = frozenset(
    {"etc.", "a.m.", "p.m.", "inc.", "ltd.", "co.", "corp.", "jr.", "sr.", "u.s.", "u.k."}
)


def _last_token(text: str, end: int) -> str:
    # Walks back from ``end`` instead of searching from the start, which would make
    # splitting quadratic in the length of a line full of abbreviations.
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[start:end]


#: Units written as a title or a short word is ("Ms.", "Ft."): after a number the word is
#: the unit ("300 ms.", "6 ft."), whose dot ends the sentence, as no title comes after a
#: number.
_UNITS_LIKE_TITLES = frozenset({"ms", "ft"})
#: Units of length and weight written with a dot ("2 in.", "5 lb."): after a number, what
#: follows says whether the measure goes on.
_MEASURE_UNITS = _UNITS_LIKE_TITLES | {"in", "yd", "mi", "cm", "mm", "km", "lb", "lbs", "oz",
                                       "kg"}
#: The word after a measure's dot ("6 ft. tall"), or its first digit ("6 ft. 2 in").
_AFTER_A_MEASURE = re.compile(r"\s*(\d|[a-z]+\b)")
#: Words that say what a measure is of or go on with its sentence ("6 ft. tall", "500 ft.
#: from the office", "300 ms. faster"), where "he" or "the" may open the next one; not
#: capitalised, as a new sentence's first word would be.
_GOES_ON_AFTER_A_MEASURE = frozenset({
    "tall", "high", "long", "wide", "deep", "thick", "heavy", "away", "from", "of", "by", "x",
    "in", "to", "below", "above", "under", "over", "across", "apart", "ago",
    "faster", "slower", "longer", "shorter", "taller", "higher", "lower", "more", "less",
})


def _is_unit_after_number(text: str, end: int, units: frozenset[str]) -> bool:
    """Whether the word ending at ``end`` in ``text`` is one of ``units`` after a number
    ("300 ms")."""
    token = _last_token(text, end)
    return (token.casefold() in units
            and re.search(r"\d$", text[:end - len(token)].rstrip()) is not None)


#: Abbreviations that close a street's name ("3 Pine St.", "12 Oak Dr.") as well as open a
#: name ("St. Louis", "Dr. Lee"): a word after them that opens a sentence ends it there.
_STREET_SUFFIXES = frozenset({"st.", "dr."})
#: Words that open a sentence and are no name a title stands before.
_SENTENCE_OPENERS = frozenset({
    "i", "i'm", "i've", "my", "we", "our", "you", "your", "he", "his", "she", "her", "it",
    "its", "it's", "they", "their", "the", "this", "that", "also", "and", "but", "please",
})
_NEXT_WORD = re.compile(r"\s*([^\W\d_]+(?:['’][^\W\d_]+)?)")
#: A slip noticed, which opens a sentence of its own ("5 Elm St. No wait, ...", "... St.
#: Sorry, that's wrong"), where "Dr. No" is a name.
_SLIP_OPENING = re.compile(r"\s*(?:no|nope|sorry|oops|whoops|wait|actually|oh|h(?:old|ang)\s+on)"
                           r"(?:\s*[,!:;–—]|\s+wait\b)", re.IGNORECASE)
#: In a request to forget, a lower-case "and" or "but" before another thing of its list
#: joins the street to the rest of the request: cut after "St.", "Forget my address 5 Glass
#: St. and my PIN" stored "and my PIN" as the fact "User's PIN" and kept the PIN held. So
#: does a "but" before a thing to keep: cut, "but keep my PIN" was stored as "Keep User's PIN".
_ANOTHER_THING = re.compile(
    r"\s*(?:(?:and|but)\s+(?:not\s+)?|but\s+(?:keep|remember|(?:don['’]t|do\s+not)\s+forget)\s+)"
    r"(?:my|our|your|the|his|her|their)\s+([^.!?;]*)")
#: A request to remove a thing of the speaker's from another place ("Remove my address 5
#: Glass St. and my PIN from the CRM"), which is a task, not one to forget: cut, the address
#: was forgotten from memory and "my PIN from the CRM" stored as a fact.
_REMOVE_MINE = re.compile(FORGET_OPENING + r"(?:delete|erase|remove)\s+(?:my|our)\s+\w",
                          re.IGNORECASE)
#: Words that make what follows "and" a clause of its own ("and my PIN is 4321"), which
#: ends the street's sentence as in any statement.
_CLAUSE_WORDS = frozenset({
    "is", "are", "was", "were", "am", "be", "been", "has", "have", "had", "do", "does", "did",
    "will", "would", "can", "could", "should", "must", "may", "might",
})
_CONTRACTED_VERB = re.compile(r"['’](?:re|ve|ll|d|m)$|n['’]t$")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def _another_thing_to_forget(line: str, start: int, at: int) -> bool:
    """Whether "and" or "but" at ``at`` names another thing the request to forget opened at
    ``start`` in ``line`` asks of, and no clause of its own."""
    thing = _ANOTHER_THING.match(line, at)
    if thing is None or (FORGET_NAMED.match(line[start:]) is None
                         and _REMOVE_MINE.match(line[start:]) is None):
        return False
    words = _WORD.findall(thing.group(1))
    # past the thing's first word, a word in "-ed" is its verb: "and my wife moved out"
    return not any(word.casefold() in _CLAUSE_WORDS or _CONTRACTED_VERB.search(word)
                   or (at > 0 and len(word) > 3 and word.casefold().endswith("ed"))
                   for at, word in enumerate(words))


def _opens_a_sentence(line: str, start: int, at: int) -> bool:
    following = _NEXT_WORD.match(line, at)
    if _SLIP_OPENING.match(line, at) is not None:
        return True
    if (following is None
            or following.group(1).casefold().replace("’", "'") not in _SENTENCE_OPENERS):
        return False
    return not _another_thing_to_forget(line, start, at)


def _is_abbreviation(token: str) -> bool:
    low = token.casefold()
    return (
        low in _NEVER_SPLIT
        or low in _SPLIT_IF_CAPITAL_FOLLOWS
        or _DOTTED_INITIALISM.fullmatch(low) is not None
        or (len(token) == 2 and token[0].isupper())
    )


def _dot_is_not_a_boundary(line: str, match: re.Match[str], start: int = 0) -> bool:
    """Whether the terminator ``match`` in ``line``, in a sentence opened at ``start``, goes
    on with that sentence."""
    if match.group().rstrip(CLOSERS) != ".":
        return False
    word = _last_token(line, match.start())
    if not word:
        return False
    if _is_unit_after_number(line, match.start(), _MEASURE_UNITS):
        # "6 ft. 2 in." goes on with the rest of the measure, "6 ft. tall and ..." with
        # what it measures; any other word may open a sentence typed in lowercase.
        following = _AFTER_A_MEASURE.match(line, match.end())
        if following is not None and (following.group(1).isdigit()
                                      or following.group(1) in _GOES_ON_AFTER_A_MEASURE):
            return True
    if _is_unit_after_number(line, match.start(), _UNITS_LIKE_TITLES):
        return False
    token = word.lstrip("([{\"'“‘") + "."
    low = token.casefold()
    if low in _STREET_SUFFIXES and _opens_a_sentence(line, start, match.end()):
        return False  # "3 Pine St. My phone is ...": the street's name ends there
    if low in _NEVER_SPLIT:
        return True
    if len(token) == 2 and token[0].isupper():
        return True
    if low in _SPLIT_IF_CAPITAL_FOLLOWS or _DOTTED_INITIALISM.fullmatch(low):
        following = _NEXT_VISIBLE.match(line, match.end())
        return not (following and following.group(1).isupper())
    return False


def _split_line(line: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for match in _TERMINATOR.finditer(line):
        if _dot_is_not_a_boundary(line, match, start):
            continue
        pieces.append(line[start:match.end()].strip())
        start = match.end()
    pieces.append(line[start:].strip())
    return pieces


# ---------------------------------------------------------------------------
# Machine text: commands and log lines

_PROMPT_LINE = re.compile(r"^[$>]\s")
# ssh, grep, tail and curl are also English words ("tail of the log", "ssh into the box"),
# so they count as a command only with an argument that looks like one.
_COMMAND_LINE = re.compile(
    r"^(?:sudo\s+)?(?:"
    r"(?:kubectl|journalctl|systemctl|helm)\s+\S"
    r"|(?:ssh|grep|tail|curl)\s+(?:[-/~\"'$]|[^\s@./=:]*[@./=:])"
    r")"
)
#: A clock time (HH:MM:SS) or an ISO date and time.
TIMESTAMP = re.compile(
    r"\b\d{1,2}:\d{2}:\d{2}\b|\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}"
)
_LOG_LEVEL = re.compile(
    r"\b(?:ERROR|ERR|WARN|WARNING|FATAL|CRITICAL|CRIT|PANIC|INFO|DEBUG|TRACE)\b"
)


def machine_cue(line: str) -> str | None:
    """Which kind of machine text ``line`` is, or None for prose.

    The kinds are "command prompt", "command line" and "log line"; see the
    module docstring for the rules.
    """
    if _PROMPT_LINE.match(line):
        return "command prompt"
    if _COMMAND_LINE.match(line):
        return "command line"
    if TIMESTAMP.search(line) and _LOG_LEVEL.search(line):
        return "log line"
    return None


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences, each stripped and keeping its terminator.

    See the module docstring for what does and does not end a sentence.
    """
    sentences: list[str] = []
    for raw_line in text.splitlines():
        line = _BULLET.sub("", raw_line.strip(), count=1).strip()
        if not line:
            continue
        pieces = [line] if machine_cue(line) else _split_line(line)
        sentences.extend(p for p in pieces if HAS_ALNUM.search(p))
    return sentences


# ---------------------------------------------------------------------------
# Terminators

_TRAILING = " \t.!;:,…"


def strip_terminator(text: str) -> str:
    """``text`` without trailing whitespace and ``. ! ; : , …``, keeping an abbreviation's dot."""
    core = text.rstrip(_TRAILING)
    if core != text and text[len(core)] == ".":
        token = _last_token(core, len(core))
        # "12 Elm St." keeps its dot: it belongs to the word, not the sentence.
        if (token and _is_abbreviation(token + ".")
                and not _is_unit_after_number(core, len(core), _UNITS_LIKE_TITLES)):
            core += "."
    return core


# ---------------------------------------------------------------------------
# Chunks

#: A cut is looked for in the last part of each piece, so no piece is tiny.
_MIN_PIECE_SHARE = 0.25


def _last_cut(window: str) -> int:
    """Where to end a piece taken from the start of ``window``: its best boundary."""
    floor = int(len(window) * _MIN_PIECE_SHARE)
    for mark in ("\n\n", "\n"):
        at = window.rfind(mark)
        if at > floor:
            return at + len(mark)
    ends = [m.end() for m in _TERMINATOR.finditer(window, floor)
            if not _dot_is_not_a_boundary(window, m)]
    if ends:
        return ends[-1]
    at = max(window.rfind(" "), window.rfind("\t"))
    return at + 1 if at > floor else len(window)


def chunk_text(text: str, max_chars: int) -> list[str]:
    """``text`` in pieces of at most ``max_chars`` characters, cut where a reader would.

    Nothing is lost but the whitespace at each cut; a text within the limit is
    one piece, and an empty one none.
    """
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, not {max_chars}")
    pieces = []
    rest = text.strip()
    while len(rest) > max_chars:
        cut = _last_cut(rest[:max_chars])
        pieces.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        pieces.append(rest)
    return pieces
