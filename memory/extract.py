"""Rule-based fact extraction for the offline policy (no language model).

``extract_facts`` turns one message into short facts for core memory, each tagged
``durable`` or ``short-lived`` together with the cue that decided it, so an
operator can audit why a fact resisted eviction. Everything here is a pure
function over strings; the regular expressions are compiled once at import.

Per sentence, ``extract_facts`` does this, in order:

1. ``split_sentences`` (memory/sentences.py) cuts the text at ``. ! ? ;``
   followed by whitespace or the end, and at newlines, keeping decimals,
   versions, hostnames, paths and abbreviations whole; a bullet line is its
   own sentence. That module's docstring has the exact rules.
2. Machine text (``machine_cue`` in memory/sentences.py: a line starting
   with a shell prompt, a command line, or a log line with a timestamp and a
   log level) is kept verbatim (trimmed to ``MAX_FACT_CHARS``) and is
   short-lived.
3. Not facts: questions (``is_question``), greetings and acknowledgements
   ("hi", "thanks!", "ok", "sounds good"), fragments of fewer than two
   words, and requests to the assistant ("please ...", "remind me ...",
   "tell me ...", "can you ...", "remember to ...").
4. "remember (that) X", "note that X", "note: X", "keep in mind (that) X",
   "don't forget (that) X" yield X.
5. First person becomes third person with the speaker's name, and only
   through this small table, anchored at the start of the sentence:
   "I am"/"I'm" -> "{speaker} is", "I was" -> "{speaker} was",
   "I have"/"I've" -> "{speaker} has", "My" -> "{speaker}'s", and
   "I <verb>" -> "{speaker} <verb>s" for like, love, hate, prefer, live,
   work, need, want, use, own. After such a rewrite, or when "my" is the
   only first-person word ("Alice is my manager"), every "my" becomes
   "{speaker}'s". Any other sentence with a first-person word is stored as
   "{speaker}: <sentence>". Everything else ("We moved to Berlin", "The
   production region is eu-west-1") is kept as written.
6. Durability by the precedence table below.
7. Facts are de-duplicated by ``normalize_fact``; the first occurrence wins.

Durability precedence. The first row that applies decides; within a row, the
cue listed first in this module wins, whatever its position in the sentence.

=====  ==========================  ===========  =================================
row    rule                        result       cues (abridged)
=====  ==========================  ===========  =================================
1      machine text (step 2)       short-lived  "$ " / "> " prompt, command line,
                                                log line
2      strong short-lived cue      short-lived  right now, at the moment, just
                                                now, for now, temporarily, today,
                                                tonight, this morning/afternoon/
                                                evening, is restarting, is
                                                running, having coffee, tail of
                                                the log, the log shows, tail -f,
                                                kubectl, ssh, grep, shell, "$ ",
                                                seeing, spiking, HH:MM:SS
3      durable cue                 durable      always, never, allergic, name
                                                is, birthday, born, live(s) in,
                                                address, moved to, prefer,
                                                favo(u)rite, vegetarian, vegan,
                                                on-call, rotation, production
                                                region, incident commander, SLA,
                                                customer, account, plan is,
                                                contract, email, phone, works
                                                at, job, wife, husband, son,
                                                daughter, deadline, policy
4      weak short-lived cue        short-lived  this week, this month,
                                                currently, now, tomorrow,
                                                yesterday
5      explicit lead-in (step 4)   durable      remember, note, keep in mind
6      nothing matched             short-lived  (cue is None)
=====  ==========================  ===========  =================================

Why this order:

- Row 1 first: a pasted log line or command is an observation even when it
  mentions a customer or an account.
- Row 2 beats row 3 because a sentence pinned to this moment ("I'm on call
  right now", "the customer is seeing 502s") stops being true soon, whatever
  it is about.
- Row 3 beats row 4 because rotations and attributes are often phrased with a
  time frame that does not make them transient: "The on-call rotation this
  week is Alice then Bob" and "I currently live in Berlin" are facts to keep.
- Row 5 sits below the short-lived rows so "remember that the api is
  restarting right now" still rotates out, but an explicit request to
  remember otherwise makes the fact durable.
- Row 6 is short-lived so that ordinary chit-chat cannot flood core with
  durable facts: durability must be earned by a cue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.sentences import (
    CLOSERS,
    HAS_ALNUM,
    TIMESTAMP,
    machine_cue,
    split_sentences,
    strip_terminator,
)
from memory.types import Durability

__all__ = [
    "MAX_FACT_CHARS",
    "ExtractedFact",
    "classify_durability",
    "extract_facts",
    "is_question",
    "normalize_fact",
]

#: Longest fact text kept; core is token-bounded, and a pasted paragraph is not one fact.
MAX_FACT_CHARS = 300

DURABLE: Durability = "durable"
SHORT_LIVED: Durability = "short-lived"


@dataclass(frozen=True)
class ExtractedFact:
    """One fact for core memory, with the cue that set its durability (None: default)."""

    text: str
    durability: Durability
    cue: str | None


_IGNORECASE = re.IGNORECASE
_APOS = "['’]"

# ---------------------------------------------------------------------------
# Durability cues. Order inside each list is priority (see the module docstring).


def _cues(*entries: tuple[str, str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((name, re.compile(pattern, _IGNORECASE)) for name, pattern in entries)


_STRONG_SHORT_LIVED = _cues(
    ("right now", r"\bright\s+now\b"),
    ("at the moment", r"\bat\s+the\s+moment\b"),
    ("just now", r"\bjust\s+now\b"),
    ("for now", r"\bfor\s+now\b"),
    ("currently running", r"\bcurrently\s+running\b"),
    ("temporarily", r"\btemporar(?:il)?y\b"),
    ("today", r"\btoday\b"),
    ("tonight", r"\btonight\b"),
    ("this morning", r"\bthis\s+morning\b"),
    ("this afternoon", r"\bthis\s+afternoon\b"),
    ("this evening", r"\bthis\s+evening\b"),
    ("is restarting", r"\b(?:is|are)\s+restarting\b"),
    ("is running", r"\b(?:is|are)\s+running\b"),
    ("having coffee", r"\bhaving\s+(?:a\s+)?coffee\b"),
    ("tail of the log", r"\btail\s+of\s+the\s+logs?\b"),
    ("the log shows", r"\bthe\s+logs?\s+show(?:s|ed)?\b"),
    ("tail -f", r"\btail\s+-f\b"),
    ("$ ", r"(?:^|\s)\$\s"),
    ("kubectl", r"\bkubectl\s"),
    ("ssh", r"\bssh\s"),
    ("grep", r"\bgrep\s"),
    ("shell", r"\bshell\b"),
    ("seeing", r"\bseeing\b"),
    ("spiking", r"\bspik(?:ing|ed)\b"),
    ("timestamp", TIMESTAMP.pattern),
)

_DURABLE = _cues(
    ("always", r"\balways\b"),
    ("never", r"\bnever\b"),
    ("allergic", r"\ballergic\b"),
    ("allergy", r"\ballerg(?:y|ies)\b"),
    ("my name", r"\bmy\s+name\b"),
    ("name is", r"\bname\s+is\b"),
    ("birthday", r"\bbirthday\b"),
    ("born", r"\bborn\b"),
    ("live in", r"\bliv(?:e|es|ing)\s+in\b"),
    ("address", r"\baddress\b"),
    ("moved to", r"\bmoved\s+to\b"),
    ("prefer", r"\bprefer(?:s|red|ence|ences)?\b"),
    ("favorite", r"\bfavou?rites?\b"),
    ("vegetarian", r"\bvegetarian\b"),
    ("vegan", r"\bvegan\b"),
    ("on-call", r"\bon[-\s]?call\b"),
    ("rotation", r"\brotations?\b"),
    ("production region", r"\b(?:production|prod)\s+region\b"),
    ("incident commander", r"\bincident\s+commander\b"),
    ("sla", r"\bslas?\b"),
    ("customer", r"\bcustomers?\b"),
    ("account", r"\baccounts?\b"),
    ("plan is", r"\bplan\s+is\b"),
    ("on the ... plan", r"\bon\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+(?:plan|tier)\b"),
    ("contract", r"\bcontracts?\b"),
    ("email", r"\be-?mail\b"),
    ("phone", r"\bphone\b"),
    ("works at", r"\bwork(?:s|ing)?\s+(?:at|for)\b"),
    # "job" alone would catch every cron and CI job; a person's job comes with an owner.
    ("job", rf"\b(?:my|new|day|his|her|their|\w+{_APOS}s)\s+job\b|\bjob\s+title\b"),
    ("wife", r"\bwife\b"),
    ("husband", r"\bhusband\b"),
    ("daughter", r"\bdaughters?\b"),
    ("son", r"\bsons?\b"),
    ("password policy", r"\bpassword\s+polic(?:y|ies)\b"),
    ("deadline", r"\bdeadlines?\b"),
    ("policy", r"\bpolic(?:y|ies)\b"),
)

_WEAK_SHORT_LIVED = _cues(
    ("this week", r"\bthis\s+week\b"),
    ("this month", r"\bthis\s+month\b"),
    ("currently", r"\bcurrently\b"),
    ("now", r"\bnow\b"),
    ("tomorrow", r"\btomorrow\b"),
    ("yesterday", r"\byesterday\b"),
)


def _first_cue(cues: tuple[tuple[str, re.Pattern[str]], ...], text: str) -> str | None:
    for name, pattern in cues:
        if pattern.search(text):
            return name
    return None


# ---------------------------------------------------------------------------
# Discourse: markers, fillers, questions, requests, lead-ins

# Words that open a sentence without adding to it. The first group needs punctuation
# after it, because "No deploys on Friday" and "Well-known issue" are statements.
_MARKERS = re.compile(
    r"^(?:"
    r"(?:(?:hi|hello|hey)(?:\s+there)?|yes|yeah|yep|yup|no|nope|well|alright|sure)\s*[,!:]\s*"
    r"|(?:ok|okay|so|and|but|also|oh|btw|by\s+the\s+way|fyi|anyway|anyways|actually"
    r"|just\s+so\s+you\s+know|for\s+the\s+record)(?:\s*[,:!]\s*|\s+)"
    r")+",
    _IGNORECASE,
)

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
    }
)
_FILLER_TOKEN = re.compile(r"[^\W\d_]+|\d+")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")

_WH_WORDS = frozenset({"who", "whom", "whose", "what", "when", "where", "which", "why", "how"})
_AUX_WORDS = frozenset(
    {"do", "does", "did", "is", "are", "was", "were", "am", "can", "could", "should",
     "would", "will", "shall"}
)
_NEGATED_AUX = {"don't": "do", "doesn't": "does", "didn't": "did", "isn't": "is",
                "aren't": "are", "wasn't": "was", "weren't": "were", "can't": "can",
                "couldn't": "could", "shouldn't": "should", "wouldn't": "would",
                "won't": "will"}
_SUBJECTS = frozenset(
    {"i", "you", "we", "they", "he", "she", "it", "this", "that", "these", "those", "there",
     "the", "a", "an", "my", "your", "our", "their", "his", "her", "its", "anyone",
     "anybody", "someone", "somebody", "everyone", "everybody", "anything", "something",
     "any", "all", "u", "ya", "y'all"}
)
_LEADING_WORDS = re.compile(r"([^\W\d_]+(?:'[^\W\d_]+)?)(?:\W+([^\W\d_]+(?:'[^\W\d_]+)?))?")

# "remember when we ..." reminisces and "remember to ..." asks for a reminder: neither states X.
_NOT_STATED = r"(?:to|when|how|what|where|who|why|if|whether|me|us)\b"
_NOT_A_REMEMBERED_FACT = re.compile(rf"^{_NOT_STATED}", _IGNORECASE)

_REQUEST = re.compile(
    r"^(?:"
    r"(?:please|pls|plz|kindly)\b"
    r"|(?:remind|tell|show|give|help)\s+(?:me|us)\b"
    r"|remind\s+\w"
    r"|(?:find|search|look\s+up|fetch|explain|summari[sz]e|describe|translate)\s+"
    r"(?!(?:is|was|are|were|has|had|will)\b)\w"
    r"|let\s+me\s+know\b"
    rf"|let{_APOS}?s\b"
    rf"|i\s+(?:want|need|would\s+like|{_APOS}d\s+like)\s+you\s+to\b"
    rf"|(?:remember|don{_APOS}?t\s+forget|do\s+not\s+forget)\s+{_NOT_STATED}"
    r"|(?:can|could|would|will)\s+you\b"
    r")",
    _IGNORECASE,
)

_LEAD_IN = re.compile(
    r"^(?:(?:please|pls|also|and)\s+)?"
    r"(?:"
    rf"(?P<soft>remember|keep\s+in\s+mind|bear\s+in\s+mind|don{_APOS}?t\s+forget|do\s+not\s+forget)"
    r"(?:\s*[:,\-–—]\s*|\s+)(?P<that>that\s+)?"
    r"|(?P<hard>note\s+to\s+self|make\s+a\s+note|take\s+note|note)"
    r"(?:\s*[:\-–—]\s*(?:that\s+)?|\s+that\s+)"
    r")"
    r"(?P<rest>\S.*)$",
    _IGNORECASE | re.DOTALL,
)
_SPACES = re.compile(r"\s+")


def _strip_markers(sentence: str) -> str:
    return _MARKERS.sub("", sentence, count=1).strip()


def _is_filler(sentence: str) -> bool:
    tokens = _FILLER_TOKEN.findall(sentence.casefold().replace("’", "'"))
    return all(token in _FILLER_WORDS for token in tokens)


def _lead_in(sentence: str) -> tuple[str, str] | None:
    match = _LEAD_IN.match(sentence)
    if match is None:
        return None
    rest = match.group("rest").strip()
    if match.group("soft") and not match.group("that") and _NOT_A_REMEMBERED_FACT.match(rest):
        return None
    keyword = match.group("soft") or match.group("hard")
    cue = _SPACES.sub(" ", keyword.casefold().replace("’", "'"))
    return cue, rest


def is_question(sentence: str) -> bool:
    """True if ``sentence`` asks rather than states.

    It ends with "?", or opens (after words like "so", "hey,") with a
    question word followed by something other than a subject ("What is the
    region", not "What I need is coffee"), or with an auxiliary followed by a
    subject ("Is the api up", not "Do not deploy on Fridays").
    """
    text = sentence.strip().rstrip(CLOSERS + " ")
    if not text:
        return False
    if text.endswith(("?", "？")):
        return True
    original = _strip_markers(text)
    match = _LEADING_WORDS.match(original.replace("’", "'"))
    if match is None:
        return False
    first = match.group(1).casefold()
    nxt_raw = match.group(2)
    nxt = nxt_raw.casefold() if nxt_raw else None
    base, _, clitic = first.partition("'")
    if base in _WH_WORDS:
        if clitic:  # "where's", "how's": the clitic is the verb
            return True
        if nxt is None:
            return True
        if base == "how" and nxt == "to":  # a heading: "How to roll back: ..."
            return False
        return nxt not in _SUBJECTS
    aux = _NEGATED_AUX.get(first, first if not clitic else None)
    if aux in _AUX_WORDS and nxt is not None and nxt != "not":
        # A capitalised name also fills the subject slot: "Is Alice on call".
        return nxt in _SUBJECTS or (nxt_raw is not None and nxt_raw[0].isupper())
    return False


# ---------------------------------------------------------------------------
# First person to third person

_HEAD_IS = re.compile(rf"^(?:i\s+am|i{_APOS}m)\b", _IGNORECASE)
_HEAD_WAS = re.compile(r"^i\s+was\b", _IGNORECASE)
_HEAD_HAS = re.compile(rf"^(?:i\s+have|i{_APOS}ve)\b", _IGNORECASE)
_HEAD_VERB = re.compile(
    r"^i\s+(like|love|hate|prefer|live|work|need|want|use|own)\b", _IGNORECASE
)
_HEAD_MY = re.compile(r"^my\b", _IGNORECASE)
_MY = re.compile(r"\bmy\b", _IGNORECASE)
_OTHER_FIRST_PERSON = re.compile(
    rf"(?<![\w'’.\-/])(?:i(?:{_APOS}(?:m|ve|d|ll))?|me|myself|mine)(?![\w'’/\-]|\.\w)",
    _IGNORECASE,
)


def _rewrite_head(text: str, speaker: str) -> str | None:
    for pattern, replacement in (
        (_HEAD_IS, f"{speaker} is"),
        (_HEAD_WAS, f"{speaker} was"),
        (_HEAD_HAS, f"{speaker} has"),
        (_HEAD_MY, f"{speaker}'s"),
    ):
        match = pattern.match(text)
        if match:
            return replacement + text[match.end():]
    verb = _HEAD_VERB.match(text)
    if verb:
        return f"{speaker} {verb.group(1).casefold()}s{text[verb.end():]}"
    return None


def _third_person(text: str, speaker: str) -> str:
    possessive = f"{speaker}'s"
    rewritten = _rewrite_head(text, speaker)
    if rewritten is not None:
        return _MY.sub(lambda _m: possessive, rewritten)
    if _OTHER_FIRST_PERSON.search(text):
        return f"{speaker}: {text}"
    return _MY.sub(lambda _m: possessive, text)


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
# Public API


def classify_durability(sentence: str) -> tuple[Durability, str | None]:
    """Return ``(durability, cue)`` for one sentence by the module's precedence table.

    ``cue`` names the rule that decided ("right now", "on-call", "log line",
    "remember", ...), or is None when nothing matched and the default applied.
    """
    text = sentence.strip()
    machine = machine_cue(text)
    if machine is not None:
        return SHORT_LIVED, machine
    strong = _first_cue(_STRONG_SHORT_LIVED, text)
    if strong is not None:
        return SHORT_LIVED, strong
    durable = _first_cue(_DURABLE, text)
    if durable is not None:
        return DURABLE, durable
    weak = _first_cue(_WEAK_SHORT_LIVED, text)
    if weak is not None:
        return SHORT_LIVED, weak
    lead_in = _lead_in(_strip_markers(text))
    if lead_in is not None:
        return DURABLE, lead_in[0]
    return SHORT_LIVED, None


def _fact_from_sentence(sentence: str, speaker: str) -> ExtractedFact | None:
    raw = sentence.strip()
    machine = machine_cue(raw)
    if machine is not None:
        text = _trim(raw)
        return ExtractedFact(text, SHORT_LIVED, machine) if text else None

    cleaned = _clean(raw)
    if not cleaned or is_question(cleaned):
        return None
    statement = _strip_markers(cleaned)
    if not statement or _is_filler(statement):
        return None

    lead_in = _lead_in(statement)
    if lead_in is not None:
        body = _clean(lead_in[1])
        if is_question(body):
            return None
    elif _REQUEST.match(statement):
        return None
    else:
        body = statement

    if len(_WORD.findall(body)) < 2 or _is_filler(body):
        return None
    text = _trim(_third_person(body, speaker))
    if not HAS_ALNUM.search(text):
        return None
    durability, cue = classify_durability(statement)
    return ExtractedFact(text, durability, cue)


def extract_facts(text: str, speaker: str = "User") -> list[ExtractedFact]:
    """Extract the facts stated in ``text``, in order, without duplicates.

    ``speaker`` replaces the first person ("I'm vegan" -> "User is vegan").
    Empty or whitespace-only text gives ``[]``; no returned fact has empty text.
    """
    speaker = speaker.strip() or "User"
    facts: list[ExtractedFact] = []
    seen: set[str] = set()
    for sentence in split_sentences(text):
        fact = _fact_from_sentence(sentence, speaker)
        if fact is None:
            continue
        key = normalize_fact(fact.text)
        if not key or key in seen:
            continue
        seen.add(key)
        facts.append(fact)
    return facts


_QUOTE_FOLD = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "«": '"', "»": '"'})
_SURROUNDING = " .,;:!?…\"'`()[]{}"
_USER_PREFIX = re.compile(r"^(?:user\s*:\s*)+")
_THE_USER = re.compile(r"\b(?:the\s+)+user\b")
_KEY_HEADS = (
    (re.compile(r"^(?:i am|i'm)\b"), "user is"),
    (re.compile(r"^i was\b"), "user was"),
    (re.compile(r"^(?:i have|i've)\b"), "user has"),
    (re.compile(r"^my\b"), "user's"),
)
_KEY_HEAD_VERB = re.compile(r"^i (like|love|hate|prefer|live|work|need|want|use|own)\b")
_NORMALIZE_PASSES = 8


def _normalize_once(key: str) -> str:
    key = key.strip(_SURROUNDING)
    key = _USER_PREFIX.sub("", key).strip(_SURROUNDING)
    key = _THE_USER.sub("user", key)
    for pattern, replacement in _KEY_HEADS:
        key = pattern.sub(replacement, key, count=1)
    key = _KEY_HEAD_VERB.sub(lambda m: f"user {m.group(1)}s", key, count=1)
    return key.strip(_SURROUNDING)


def normalize_fact(text: str) -> str:
    """The de-duplication key of a fact.

    Casefolded, curly quotes made straight, whitespace collapsed, surrounding
    punctuation and quotes removed; a leading "user:" dropped, "the user" read
    as "user", and a leading "I am"/"I'm"/"I was"/"I have"/"I've"/"my"/"I
    <verb>" read as the user's, the same table ``extract_facts`` rewrites by.
    Nothing else is touched, so distinct facts keep distinct keys.
    """
    key = _SPACES.sub(" ", text.casefold().translate(_QUOTE_FOLD))
    # Each pass can expose another strippable layer ('"user: I am ..."'); a few passes
    # reach the fixed point for any realistic text.
    for _ in range(_NORMALIZE_PASSES):
        nxt = _normalize_once(key)
        if nxt == key:
            break
        key = nxt
    return key
