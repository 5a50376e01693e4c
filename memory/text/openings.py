"""How a sentence opens: discourse markers that add nothing, and "remember (that) X".

Fact extraction (memory/text/extract.py) reads a sentence after its opening, and
durability (memory/text/durability.py, row 6) counts an explicit request to remember
as a cue; both read the opening here. Everything here is a pure function over strings;
the regular expressions are compiled once at import.

``strip_markers`` skips the discourse markers that open a sentence ("so,", "btw",
"hey,", "ok", "no worries,", "never mind,", and acknowledgements: "thanks,", "great,",
"got it,"); words that need punctuation after them to be markers ("no", "well", "great")
are kept without it, since "No deploys on Friday" and "Great food here" are statements.

``lead_in`` recognises "remember (that) X", "note: X", "keep in mind X", "don't
(ever) forget (that) X", "never forget (that) X" and the like, and gives the keyword and
X; "remember to ...", "remember when ..." ask or reminisce (``NOT_STATED``), so without
"that" they are no lead-in, and "don't forget about X" is one only when a clause about X follows.

``said_of_what`` tells that clause of X ("The rollover is due in March").

``with_said_about`` joins "don't forget about X;" to the clause after it, which the
semicolon cut off ("...; it starts at 2am UTC"), so that together they state a fact.
"""

from __future__ import annotations

import re

__all__ = ["ABOUT_MINE", "NOT_STATED", "lead_in", "opened_as_said", "said_of_what",
           "strip_markers", "with_said_about"]

_IGNORECASE = re.IGNORECASE
_APOS = "['’]"

# Words that open a sentence without adding to it. The first group needs punctuation
# after it, because "No deploys on Friday" and "Well-known issue" are statements.
_MARKERS = re.compile(
    r"^(?:"
    r"(?:(?:hi|hello|hey)(?:\s+there)?|yes|yeah|yep|yup|no|nope|well|alright|sure"
    r"|no\s+worries|never\s*mind|no\s+problem"
    # acknowledgements of the reply before ("Thanks, I live in Berlin", "Thanks a lot, ...")
    r"|(?:many\s+)?thanks(?:\s+(?:a\s+lot|a\s+bunch|so\s+much|very\s+much|again))?"
    r"|thank\s+you(?:\s+(?:so\s+|very\s+)?much)?(?:\s+again)?"
    r"|thx|great|cool|nice|perfect|awesome|got\s+it|sounds\s+good"
    # a sound of hesitation ("Um, I like tea")
    r"|um+|uh+|hmm+|ah+|erm?)"
    r"\s*[,!:]\s*"
    r"|(?:ok|okay|so|and|but|also|oh|btw|by\s+the\s+way|fyi|anyway|anyways|actually"
    r"|just\s+so\s+you\s+know|for\s+the\s+record)(?:\s*[,:!]\s*|\s+)"
    r")+",
    _IGNORECASE,
)

#: What follows "remember" when it states nothing: "remember when we ..." reminisces,
#: and "remember to ...", "don't forget about ..." ask for a reminder; "don't forget about
#: my peanut allergy" states what is the speaker's (``ABOUT_MINE``), as "... my X" does.
NOT_STATED = r"(?:to|about(?!\s+(?:my|our)\b)|when|how|what|where|who|why|if|whether|me|us)\b"
#: "about my X" after "remember" or "don't forget": X is the speaker's, kept as "my X" is.
ABOUT_MINE = re.compile(r"^about\s+(?=(?:my|our)\b)", re.IGNORECASE)
_NOT_A_REMEMBERED_FACT = re.compile(rf"^{NOT_STATED}", _IGNORECASE)
#: A verb, as what follows "this", "that" or "which" standing for X ("this starts at 8",
#: "which got moved"), or a name's ("that Dana wants").
_VERB = (r"(?:is|was|are|were|will|would|can|could|should|must|may|might|has|had|have|does"
         r"|did|do|got|gets|\w+(?<![siu])s|\w+ed)\b")
#: "don't forget about X, it's due in March": what follows X says something of it, so the
#: request states a fact as "... about my X" does; X alone ("about the rollover") does not,
#: nor does X with a clause that only says which X, whose subject is a pronoun or a name
#: ("the report, that I promised Dana", "the report, that Dana wants").
_ABOUT_THEN_SAID = re.compile(
    r"^about\s+(?!(?:my|our|it|this|that|these|those|them|him|her|me|us|you)\b)(?P<what>\w[^,;:–—]*?)\s*(?:[,;:]|\s[-–—])\s*"
    rf"(?P<said>(?:(?:it|they|this)(?:{_APOS}(?:s|re|ll))?|(?:that|which){_APOS}(?:s|ll)"
    r"|(?:that|which)(?=\s+(?!(?:i|you|we|he|she|they|my|your|our|his|her|their|the|a|an)\b"
    rf"|(?-i:[A-Z])[\w-]*\s+{_VERB})))"
    r"\s+\w.*)$",
    _IGNORECASE | re.DOTALL)

#: What "don't forget about X" keeps of a clause about X ("X, it's due in March"): the
#: pronoun that stands for X, its verb when fused to it, and the rest. A subject after
#: "that" or "which" ("X, that I promised Dana") makes it a relative clause, not X's verb.
_SAID_OF_WHAT = re.compile(
    r"^(?P<what>\w[^,;:–—]*?),\s+"
    r"(?:(?P<pronoun>it|that|this|which)(?P<one>" + _APOS + r"(?:s|ll))?"
    r"|they(?P<several>" + _APOS + r"(?:re|ll))?)"
    r"\s+(?!(?:i|you|we|he|she|they|it|my|your|our|his|her|their|the|a|an)\b)(?P<said>\w.*)$",
    _IGNORECASE | re.DOTALL)
#: What follows "this", "that" or "which" standing for X: its verb (``_VERB``). Before a
#: noun ("this Friday", "that week") the word says when or which, and X cannot take its
#: place: "The standup week Dana runs it".
_VERB_AFTER_DEMONSTRATIVE = re.compile(_VERB, _IGNORECASE)
#: A fused "'s" that is "has": "it's been moved", "it's got a deadline".
_HAS = re.compile(r"^(?:been|got|gotten|had)\b", _IGNORECASE)
_FUSED = {"s": "is", "re": "are", "ll": "will"}
#: X when it names several ("the tickets"): a lower-case last word in a plural's "s" (not
#: "ss", "is" or "us": "the class", "the analysis", "the status").
_SEVERAL = re.compile(r"(?:^|\s)[a-z-]*[^\Wsiu]s$")
#: What follows the word X is named by ("the renewal of the certs"): the certs are not
#: what "it" stands for, the renewal is.
_AFTER_HEAD = re.compile(
    r"\s+(?:of|for|in|on|at|from|with|to|about|by|under|behind|between)\s.*$",
    _IGNORECASE | re.DOTALL)
#: Words in a plural's "s" that name one thing: "the news, it's on me" is no plural.
_ONE_IN_S = frozenset({
    "news", "series", "species", "means", "lens", "gas", "canvas", "alias", "atlas", "bias",
    "chaos", "ethos", "kudos", "physics", "mathematics", "maths", "economics", "diabetes",
    "measles", "mumps", "rabies", "headquarters", "whereabouts"})
#: A verb said of "it" that takes another form when X names several ("it's on me": "The
#: tickets are on me").
_AS_SEVERAL = {"is": "are", "was": "were", "has": "have", "does": "do"}
_FIRST_WORD = re.compile(r"^(\w+)\b")
#: A verb in the third person ("starts", "goes", "needs"), after a word that says how often
#: or how surely, whose own "s" is no verb's ("it always starts at 2am").
_VERB_OF_ONE = re.compile(
    r"^(?P<before>(?:(?:always|usually|often|never|also|still|just|only|sometimes|normally"
    r"|already|probably|perhaps)\s+)?)(?P<verb>is|[a-z]+[^\Wsiu]s)\b")
#: Verbs that end in one "s" or "z", whose "-es" (or doubled letter and "-es": "quizzes",
#: "focusses") a rule would take for a stem in "e" ("focuse") or a doubled one ("quizz").
_STEMS_IN_S_OR_Z = frozenset({
    "focus", "refocus", "bus", "gas", "bias", "nonplus", "plus", "surplus", "caucus",
    "chorus", "census", "campus", "virus", "atlas", "alias", "canvas", "quiz", "whiz"})
#: Verbs whose letter doubled is another verb: "canvasses" is "canvass" (voters), not
#: "canvas".
_OTHER_VERB_DOUBLED = frozenset({"canvass"})
#: Verbs that end in "e" after a hiss or an "o", whose "-es" a rule would take whole
#: ("cach", "sho").
_STEMS_IN_E = frozenset({
    "ache", "cache", "psyche", "niche", "quiche", "avalanche", "finesse", "shoe", "canoe",
    "hoe", "toe", "tiptoe", "untie", "belie", "outvie"})
#: Words in a verb's "s" that are no verb: "it always ran late" keeps "always".
_NO_VERBS_IN_S = frozenset({
    "always", "sometimes", "perhaps", "nowadays", "afterwards", "besides", "towards",
    "upstairs", "downstairs", "overseas", "indoors", "outdoors", "anyways", "yes", "whereas",
    "its", "hers", "ours", "yours", "theirs"})


def said_of_what(told: str) -> str | None:
    """The clause about X that "don't forget about X, it's due in March" keeps, as
    ``lead_in`` gives it ("X, it's due in March"), with X in place of the pronoun that
    stands for it: "The quarterly report is due in March". Cut off, "it's due in March"
    would not say what is due. None when ``told`` is not so made."""
    match = _SAID_OF_WHAT.match(told.strip())
    if match is None:
        return None
    demonstrative = (match["pronoun"] or "").casefold() in ("this", "that", "which")
    if demonstrative and not match["one"] and not _VERB_AFTER_DEMONSTRATIVE.match(match["said"]):
        return None
    fused = (match["one"] or match["several"] or "")[1:].casefold()
    verb = _FUSED.get(fused, "")
    if fused == "s" and _HAS.match(match["said"]):
        verb = "has"
    said = match["said"]
    if match["pronoun"] and _names_several(match["what"]):
        # "it" stands for all of them: "The tickets is on me" would misquote the speaker.
        verb = _AS_SEVERAL.get(verb, verb)
        said = _FIRST_WORD.sub(lambda word: _AS_SEVERAL.get(word[1], word[1]), said, count=1)
        if not verb:  # "it starts at 2am": "The tickets start at 2am"
            said = _VERB_OF_ONE.sub(_of_several, said, count=1)
    what = match["what"][:1].upper() + match["what"][1:]
    return " ".join(word for word in (what, verb, said) if word)


def _names_several(what: str) -> bool:
    """Whether X ("the tickets", not "the renewal of the certs" or "the news") names
    several things, so that "it" for them takes their verb."""
    head = _AFTER_HEAD.sub("", what.strip())
    return (_SEVERAL.search(head) is not None
            and head.split()[-1].casefold() not in _ONE_IN_S)


def _of_several(found: re.Match[str]) -> str:
    if found["verb"] in _NO_VERBS_IN_S:
        return found[0]
    return found["before"] + _verb_of_several(found["verb"])


def _verb_of_several(verb: str) -> str:
    """The form ``verb``, said of one ("starts", "goes", "carries", "fixes"), takes when said
    of several ("start", "go", "carry", "fix"): "-es" after a hiss ("watches", "misses",
    "buzzes") or "o" ("goes") is the ending, else only the "s" is ("uses", "closes",
    "sizes"); a verb that ends in one "s" or "z" ("focuses", "quizzes") or in "e" after
    such a letter ("caches", "shoes") is known by name, as its spelling alone misleads."""
    if verb in _AS_SEVERAL:  # after a word of how often: "it always has"
        return _AS_SEVERAL[verb]
    if verb[:-1] in _STEMS_IN_E:
        return verb[:-1]
    if len(verb) > 4 and verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb[:-2] in _OTHER_VERB_DOUBLED:
        return verb[:-2]
    if verb.endswith("es") and (stem := next((stem for stem in (verb[:-3], verb[:-2])
                                              if stem in _STEMS_IN_S_OR_Z), None)):
        return stem  # "focuses", "focusses", "quizzes": the letter doubled or not
    if verb.endswith(("sses", "zzes", "tzes", "xes", "ches", "shes", "oes")):
        return verb[:-2]
    return verb[:-1]


_LEAD_IN = re.compile(
    r"^(?:(?:please|pls|also|and)\s+)?"
    r"(?:"
    rf"(?P<soft>remember|keep\s+in\s+mind|bear\s+in\s+mind"
    rf"|(?:(?:don{_APOS}?t|do\s+not)(?:\s+ever)?|never(?:\s+ever)?)\s+(?:let\s+(?:me|us)\s+)?"
    r"forget)"
    r"(?:\s*[:,\-–—]\s*|\s+)(?P<that>that\s+)?"
    r"|(?P<hard>note\s+to\s+self|make\s+a\s+note|take\s+note|note)"
    r"(?:\s*[:\-–—]\s*(?:that\s+)?|\s+that\s+)"
    r")"
    r"(?P<rest>\S.*)$",
    _IGNORECASE | re.DOTALL,
)
_SPACES = re.compile(r"\s+")


def strip_markers(sentence: str) -> str:
    """``sentence`` without the discourse markers that open it ("so,", "btw", "hey,")."""
    return _MARKERS.sub("", sentence, count=1).strip()


#: A word in lower case ("the"), not one whose capital is inside it ("iPhone", "eBay").
_LOWER_WORD = re.compile(r"[a-z][a-z'’-]*\b")


def opened_as_said(sentence: str) -> str:
    """``sentence`` without its opening markers, as it would read said without them: "Okay,
    the deploy is at 5pm" -> "The deploy is at 5pm", stored as that sentence would be."""
    rest = strip_markers(sentence)
    if rest != sentence.strip() and sentence.strip()[:1].isupper() and _LOWER_WORD.match(rest):
        return rest[:1].upper() + rest[1:]
    return rest


def with_said_about(sentences: list[str]) -> list[str]:
    """``sentences`` with "don't forget about X;" joined to the clause after it that says
    something of X ("...; it starts at 2am UTC"), which the semicolon cut off: together they
    state a fact, as "don't forget about X, it starts at 2am UTC" does (``lead_in``), and
    apart the clause would not say what "it" is."""
    joined: list[str] = []
    for sentence in sentences:
        if joined and joined[-1].rstrip().endswith(";"):
            match = _LEAD_IN.match(strip_markers(f"{joined[-1]} {sentence}"))
            if (match is not None and match.group("soft") and not match.group("that")
                    and _ABOUT_THEN_SAID.match(match.group("rest").strip()) is not None):
                joined[-1] = f"{joined[-1]} {sentence}"
                continue
        joined.append(sentence)
    return joined


def lead_in(sentence: str) -> tuple[str, str] | None:
    """``(cue, X)`` when ``sentence`` is "remember (that) X", "note: X" and the like, else None.

    "remember to ...", "remember when ..." and their kin ask or reminisce, so
    they are not lead-ins unless "that" follows the keyword; "don't forget about X"
    is one only when a clause about X follows ("..., it's due in March": X, then it).
    """
    match = _LEAD_IN.match(sentence)
    if match is None:
        return None
    rest = match.group("rest").strip()
    said = _ABOUT_THEN_SAID.match(rest) if match.group("soft") else None
    if said is not None and not match.group("that"):
        rest = f"{said['what']}, {said['said']}"
    elif match.group("soft") and not match.group("that") and _NOT_A_REMEMBERED_FACT.match(rest):
        return None
    if match.group("soft") and not match.group("that"):
        rest = ABOUT_MINE.sub("", rest, count=1)
    keyword = match.group("soft") or match.group("hard")
    cue = _SPACES.sub(" ", keyword.casefold().replace("’", "'"))
    return cue, rest
