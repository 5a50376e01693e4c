"""Rule-based fact extraction for the offline policy (no language model).

``extract_facts`` turns one message into short facts for core memory, each tagged
``durable`` or ``short-lived`` together with the cue that decided it, so an
operator can audit why a fact resisted eviction. This module owns what counts
as a fact and how it is worded; whether it lasts is memory/text/durability.py's
concern, and sentence boundaries are memory/text/sentences.py's. Everything here is
a pure function over strings; the regular expressions are compiled once at
import.

Per sentence, ``extract_facts`` does this, in order:

1. ``split_sentences`` (memory/text/sentences.py) cuts the text at ``. ! ? ;``
   followed by whitespace or the end, and at newlines, keeping decimals,
   versions, hostnames, paths and abbreviations whole; a bullet line is its
   own sentence. That module's docstring has the exact rules.
2. Machine text (``machine_cue`` in memory/text/sentences.py: a line starting
   with a shell prompt, a command line, or a log line with a timestamp and a
   log level) is kept verbatim (trimmed to ``MAX_FACT_CHARS``) and is
   short-lived.
3. Not facts: questions (``is_question``, memory/text/questions.py), greetings and
   acknowledgements ("hi", "thanks!", "ok", "sounds good"), fragments of fewer than two
   words, headings ("Notes from the meeting:"), statements cut off before
   their point ("My name is", "I am allergic to", "I like": memory/text/
   fragments.py), asides about the conversation ("I'm sorry", "I'm confused", "I'm
   back": ``is_aside``, there too, which leaves the rest of a sentence that joins one to
   a statement, and of an apology for one: ``without_asides``), a correction that names
   no slip ("Sorry, I meant Portland": ``corrects_nothing``), and requests to the
   assistant ("please ...", "remind me ...", "tell me ...", "search ..." (not "Search works
   on iOS", whose verb makes the word a subject), "can you ...", "remember
   to ...", "don't let me forget to ...", "don't forget about ..." (not "... about my
   X", which yields "my X" as "don't forget my X" does, nor "... about X, it's due in
   March", which yields "X is due in March" (``said_of_what``), as "... about X; it's
   due in March" does: ``with_said_about``), "call me back later", "call me a taxi":
   ``asks_a_call`` in memory/text/introductions.py).
4. "remember (that) X", "note that X", "note: X", "keep in mind (that) X", "don't forget
   (that) X", "don't let me forget that X" yield X (``lead_in`` in
   memory/text/openings.py, which durability reads too, since the lead-in also makes the
   fact durable). "Call me X" on its own is read as "My name is X" (``called`` in
   memory/text/introductions.py), so it states the speaker's name like that sentence, and
   replaces a name as it does. So is a greeting followed by "I'm X" and nothing more
   ("Hi! I'm Maya": ``introduced``), the greeting said in the same sentence or the one
   before, but it names only a speaker with no name held: beside another it is read as
   earlier versions read it ("User is Maya": ``ExtractedFact.plain``), since "Hi, I'm
   Nervous" is no new name.
5. First person becomes third person with the speaker's name
   (memory/text/person.py, whose docstring has the table): "I'm vegan" ->
   "{speaker} is vegan", "My name is Dana and I live in Lisbon" -> "{speaker}'s
   name is Dana and {speaker} lives in Lisbon"; a sentence that speaks in the
   first person otherwise is quoted, "{speaker}: <sentence>".
6. Durability by ``classify_durability`` (memory/text/durability.py, whose
   docstring has the precedence table), applied to the sentence as stated
   ("Call me X" as "My name is X"), before the lead-in is removed.
7. Facts are de-duplicated by ``normalize_fact``; the first occurrence wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tiermem.memory.text.acquired import acquired_as_had
from tiermem.memory.text.durability import SHORT_LIVED, classify_durability
from tiermem.memory.text.ellipses import with_ellipses_filled

# The de-duplication key lives in its own module; re-exported, as callers import it here.
from tiermem.memory.text.fact_keys import earlier_fact_norms, fact_norm, fact_norms, normalize_fact
from tiermem.memory.text.fragments import (
    corrects_nothing,
    doubted,
    is_aside,
    is_heading,
    stops_short,
    without_asides,
    without_doubt,
)
from tiermem.memory.text.introductions import (
    asks_a_call,
    called,
    introduced,
    with_introductions,
    without_greeting,
)
from tiermem.memory.text.openings import (
    NOT_STATED,
    lead_in,
    opened_as_said,
    said_of_what,
    with_said_about,
)
from tiermem.memory.text.person import (
    BEFORE_JOINT,
    BEFORE_NEGATION,
    BEFORE_RETURN,
    FIRST,
    head,
    third_person,
)
from tiermem.memory.text.questions import is_question
from tiermem.memory.text.secret_names import secret_said_plainly
from tiermem.memory.text.sentences import (
    HAS_ALNUM,
    machine_cue,
    split_sentences,
    strip_terminator,
)
from tiermem.memory.text.unsaid_denials import denies_nothing_said
from tiermem.memory.types import Durability

# classify_durability is re-exported so callers find the whole extractor in one import.
__all__ = [
    "MAX_FACT_CHARS",
    "ExtractedFact",
    "classify_durability",
    "earlier_fact_norms",
    "extract_facts",
    "fact_norm",
    "fact_norms",
    "is_question",
    "normalize_fact",
]

#: Longest fact text kept; core is token-bounded, and a pasted paragraph is not one fact.
MAX_FACT_CHARS = 300


@dataclass(frozen=True)
class ExtractedFact:
    """One fact for core memory, with the cue that set its durability (None: default)."""

    text: str
    durability: Durability
    cue: str | None
    #: The text earlier versions of tiermem extracted from the same sentence, when it
    #: differs: they rewrote only the first person of its head ("User's name is Dana and I
    #: live in Lisbon"), quoted "I speak Hebrew" ("User: I speak Hebrew"), kept "Call me
    #: X" as said ("User: Call me X") and "Hi! I'm Maya" as "User is Maya". A fact forgotten
    #: or stored in that form is still known by it.
    former: str | None = None
    #: The text the version before "I don't" was rewritten extracted, when it differs from
    #: both: it read later clauses, but kept "..., and I don't drink coffee" as said.
    previous: str | None = None
    #: The text the version before "my wife and I" was told of the speaker extracted, when
    #: it differs from all of those: "User's wife and I moved to Porto and User doesn't
    #: drink coffee", "I don't" rewritten but that "I" kept.
    unjoined: str | None = None
    #: The text the version before a later "I came back" was told of the speaker extracted,
    #: when it differs from all of those: "User moved to Berlin but I came back".
    unreturned: str | None = None
    #: The text the version before a doubt that opens a sentence was kept extracted, when
    #: it differs from all of those: it left the doubt out, "User: I think my wife is
    #: vegan" of "I'm not sure, but I think my wife is vegan".
    undoubted: str | None = None
    #: For an introduction ("Hi, I'm Maya"), the fact read as no introduction ("User is
    #: Maya", short-lived, as earlier versions stored it): a greeting never changes a name
    #: the speaker has given, so where another is held ("Hi, I'm Nervous" after "My name is
    #: Maya") this is stored instead (``stated_beside`` in memory/text/updates.py).
    plain: ExtractedFact | None = None

    @property
    def formers(self) -> tuple[str, ...]:
        """The texts earlier versions extracted from the sentence (``former``, ``previous``,
        ``unjoined``, ``unreturned``, ``undoubted``)."""
        return tuple(text for text in (self.former, self.previous, self.unjoined,
                                       self.unreturned, self.undoubted) if text is not None)


_IGNORECASE = re.IGNORECASE
_APOS = "['’]"

# ---------------------------------------------------------------------------
# Discourse: fillers and requests (questions: memory/text/questions.py)

_FILLER_WORDS = frozenset(
    {
        "hi", "hello", "hey", "hiya", "howdy", "yo", "there", "all", "everyone", "folks", "thanks",
        "thank", "thx", "ty", "tysm", "you", "so", "much", "very", "a", "lot", "lots", "ok", "okay",
        "k", "kk", "sure", "cool", "great", "nice", "awesome", "perfect", "excellent", "good",
        "fine", "got", "it", "sounds", "makes", "sense", "morning", "afternoon", "evening", "night",
        "day", "have", "one", "bye", "goodbye", "cya", "see", "ya", "later", "soon", "yes", "yeah",
        "yep", "yup", "no", "nope", "nah", "lol", "haha", "hahaha", "hmm", "hm", "um", "uh", "ah",
        "oh", "wow", "alright", "right", "indeed", "exactly", "agreed", "understood", "noted",
        "cheers", "np", "problem", "will", "do", "done", "welcome", "again", "far", "that", "this",
        "is", "s", "i", "am", "m",
        # "no worries", "never mind", "no rush", "not yet", "fair enough", "go ahead"
        "worries", "worry", "never", "mind", "rush", "not", "yet", "fair", "enough", "go",
        "ahead", "nothing", "else",
    }
)
_FILLER_TOKEN = re.compile(r"[^\W\d_]+|\d+")
#: A slip noticed and nothing said after it ("No wait.", "Hold on!", "Oh, hang on"): stored,
#: "No wait" stood as a fact, where "No, wait." was none.
_SLIP_ALONE = re.compile(r"^(?:(?:no|oh|ah|um|uh|wait|h(?:old|ang)\s+on)\b[\s,;:!.–—-]*)+$",
                         re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")

_REQUEST = re.compile(
    r"^(?:"
    r"(?:please|pls|plz|kindly)\b"
    r"|(?:remind|tell|show|give|help)\s+(?:me|us)\b"
    r"|remind\s+\w"
    r"|(?:ask|find|search|look\s+up|fetch|explain|summari[sz]e|describe|translate|check|open"
    r"|read|show|list|get)\s+"
    # a noun and a verb after it: "Read receipts are off", "Check engine light is on"
    rf"(?!(?:[\w'’-]+\s+){{1,2}}(?:is|are|was|were|has|have|had|will|works|runs)(?:n{_APOS}?t)?\b)"
    # a verb after it makes the word a subject: "Search works on iOS", "Search doesn't";
    # one that is also a plural noun ("Search returns 404") but before what is sought:
    # "Search works by Monet", "Find returns for March", "Search runs for Tom"
    r"(?!(?:is|was|are|were|has|had|will|worked|does|did|failed|broke|crashed|seems"
    rf"|(?:does|did|is|was|has|wo)n{_APOS}?t|can{_APOS}?t)\b"
    r"|(?:works|fails|breaks|crashes|returns|runs)\b(?!\s+(?:by|of|from|about|orders?)\b"
    r"|\s+in\s+the\s+logs?\b"
    r"|(?<!works)(?<!fails)(?<!breaks)\s+for\s+(?:(?-i:[A-Z])|(?:last|this|next)\b)))\w"
    r"|let\s+me\s+know\b"
    rf"|let{_APOS}?s\b"
    rf"|i\s+(?:want|need|would\s+like|{_APOS}d\s+like)\s+you\s+to\b"
    rf"|(?:remember|(?:don{_APOS}?t|do\s+not)\s+(?:let\s+(?:me|us)\s+)?forget)\s+{NOT_STATED}"
    r"|(?:can|could|would|will)\s+you\b"
    r")",
    _IGNORECASE,
)


def _is_filler(sentence: str) -> bool:
    tokens = _FILLER_TOKEN.findall(without_greeting(sentence).casefold().replace("’", "'"))
    return all(token in _FILLER_WORDS for token in tokens) or bool(_SLIP_ALONE.match(sentence))


# ---------------------------------------------------------------------------
# Cleaning

_OPEN_TO_CLOSE = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "(": ")"}


def _clean(sentence: str) -> str:
    text = strip_terminator(sentence.strip())
    if len(text) >= 2 and _OPEN_TO_CLOSE.get(text[0]) == text[-1]:
        text = strip_terminator(text[1:-1].strip())
    return text


def _trim(text: str) -> str:
    return text[:MAX_FACT_CHARS].strip()


# ---------------------------------------------------------------------------
# Extraction


def _fact_from_sentence(sentence: str, speaker: str, introductions: bool = True
                        ) -> ExtractedFact | None:
    raw = sentence.strip()
    machine = machine_cue(raw)
    if machine is not None:
        text = _trim(raw)
        return ExtractedFact(text, SHORT_LIVED, machine) if text else None

    cleaned = _clean(raw)
    if not cleaned or is_question(cleaned) or is_heading(raw):
        return None
    statement = opened_as_said(cleaned)
    said = statement
    introduction = introduced(cleaned) if introductions else None
    plain = None
    if introduction is not None:  # "Hi! I'm Sammy": "My name is Sammy"
        statement, said = introduction[0], introduction[1] or said
        # A greeting said apart ("Hi!") is no fact of its own: "I'm Sammy" alone is read.
        plain = _fact_from_sentence(introduction[1] or raw, speaker, introductions=False)
    statement = called(statement) or statement  # "Call me Sammy" likewise
    if not statement or _is_filler(statement):
        return None

    found = lead_in(statement)
    if found is not None:
        earlier = _clean(found[1])
        if is_question(earlier):
            return None
        # "the rollover, it's due in March": earlier versions kept the pronoun.
        body = said_of_what(earlier) or earlier
    elif _REQUEST.match(statement) or asks_a_call(statement):
        return None
    else:
        body = earlier = statement
    kept = without_asides(body)
    if kept != body:  # "I'm back, and I moved to Porto": only the move is said
        if body == statement:
            statement = kept
        body = earlier = kept
    # "I got a dog named Rex" says what "I have a dog named Rex" does; earlier versions
    # quoted it, as ``earlier`` still reads.
    body = acquired_as_had(body) or body
    body = secret_said_plainly(body) or body  # "My new password is X": the password

    if (len(_WORD.findall(body)) < 2 or _is_filler(body) or stops_short(body)
            or is_aside(body) or corrects_nothing(body) or denies_nothing_said(body)):
        return None
    opening = head(body, speaker)
    if opening is not None and not HAS_ALNUM.search(body[opening[1]:]):
        return None  # "I like", "My": a head with nothing after it
    # "I'm not sure, but I think ...": quoted whole, as "I think ..., but I'm not sure" is.
    unsure = doubted(body)
    text = _trim(f"{speaker}: {body}" if unsure else third_person(body, speaker))
    if not HAS_ALNUM.search(text):
        return None
    durability, cue = classify_durability(statement)
    # Earlier versions stored "Call me Sammy" as said ("User: Call me Sammy").
    former, previous, unjoined, unreturned = (
        _trim(third_person(earlier if said == statement else said, speaker, version))
        for version in (FIRST, BEFORE_NEGATION, BEFORE_JOINT, BEFORE_RETURN))
    undoubted = _trim(third_person(without_doubt(body), speaker)) if unsure else None
    held = [text, former, previous, unjoined, unreturned]
    return ExtractedFact(
        text, durability, cue, former if former != text else None,
        previous if previous not in held[:2] else None,
        unjoined if unjoined not in held[:3] else None,
        unreturned if unreturned not in held[:4] else None,
        undoubted if undoubted not in held else None, plain)


def extract_facts(text: str, speaker: str = "User") -> list[ExtractedFact]:
    """Extract the facts stated in ``text``, in order, without duplicates.

    ``speaker`` replaces the first person ("I'm vegan" -> "User is vegan").
    Empty or whitespace-only text gives ``[]``; no returned fact has empty text.
    """
    speaker = speaker.strip() or "User"
    facts: list[ExtractedFact] = []
    seen: set[str] = set()
    for sentence in with_ellipses_filled(
            with_introductions(with_said_about(split_sentences(text)))):
        fact = _fact_from_sentence(sentence, speaker)
        if fact is None:
            continue
        key = normalize_fact(fact.text)
        if not key or key in seen:
            continue
        seen.add(key)
        facts.append(fact)
    return facts
