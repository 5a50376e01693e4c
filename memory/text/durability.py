"""Durability of a stated fact: ``durable`` (keep it) or ``short-lived`` (let it rotate out).

``classify_durability`` decides for one sentence and names the cue that
decided, so an operator can audit why a fact resisted eviction. It reads a
sentence's opening as fact extraction does (memory/text/openings.py): discourse
markers that add nothing ("so,", "btw", "ok") are skipped by ``strip_markers``,
and an explicit "remember (that) X" is recognised by ``lead_in``. Everything here
is a pure function over strings; the regular expressions are compiled once at import.

Durability precedence. The first row that applies decides; within a row, the
cue listed first in this module wins, whatever its position in the sentence.

=====  ==========================  ===========  =================================
row    rule                        result       cues (abridged)
=====  ==========================  ===========  =================================
1      machine text                short-lived  "$ " / "> " prompt, command line,
                                                log line (``machine_cue``)
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
                                                address, city, moved to, prefer,
                                                favo(u)rite, vegetarian, vegan,
                                                speaks LANGUAGE, my manager
                                                (doctor, dog, ...) is Name or
                                                Name is my manager (relation
                                                named), my editor
                                                (IDE, browser, OS) is TOOL
                                                (own tool; before relation
                                                named, as a human editor is
                                                named too), on-call, rotation,
                                                production region, incident
                                                commander, SLA,
                                                customer, account, plan is,
                                                contract, email, phone, works
                                                at, work remotely (from home),
                                                job, my X is called, a
                                                dog named, deadline, policy
4      weak short-lived cue        short-lived  this week, this month,
                                                currently, now, tomorrow,
                                                yesterday
5      person cue                  durable      wife, husband, son, daughter,
                                                sister, brother, mother, mom,
                                                father, dad, parents, cousin
                                                (and other family)
5      preference cue              durable      I / we / the user like(s),
                                                love(s), hate(s), enjoy(s),
                                                dislike(s), can't stand X
                                                (not "it", "that", "you")
6      explicit lead-in            durable      remember, note, keep in mind
                                                (``lead_in``)
7      nothing matched             short-lived  (cue is None)
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
- Row 5 sits below row 4 because who a sentence is about does not make what
  it says last: "My wife is Maria" is kept, "My mom is in the hospital this
  week" passes.
- Preferences share row 5: "I hate onions" and "User loves jazz" are as lasting as
  "I prefer window seats" (row 3), but "I love the weather now" is a passing
  remark, and a reaction ("I love it", "I like that idea") is no fact at all.
- Row 6 sits below the short-lived rows so "remember that the api is
  restarting right now" still rotates out, but an explicit request to
  remember otherwise makes the fact durable.
- Row 7 is short-lived so that ordinary chit-chat cannot flood core with
  durable facts: durability must be earned by a cue.
"""

from __future__ import annotations

import re

from tiermem.memory.text.openings import lead_in, strip_markers
from tiermem.memory.text.sentences import TIMESTAMP, machine_cue
from tiermem.memory.types import Durability

__all__ = [
    "DURABLE",
    "LANGUAGES",
    "SHORT_LIVED",
    "classify_durability",
]

DURABLE: Durability = "durable"
SHORT_LIVED: Durability = "short-lived"

_IGNORECASE = re.IGNORECASE
_APOS = "['’]"

# ---------------------------------------------------------------------------
# Durability cues. Order inside each list is priority (see the module docstring).


#: Languages people speak, for the "language" cue: a language spoken lasts ("I speak
#: Hebrew"), where "speaks" alone does not ("I speak at PyCon on Friday").
LANGUAGES = (
    r"(?:english|spanish|french|german|italian|portuguese|dutch|flemish|hebrew|arabic|russian"
    r"|ukrainian|polish|czech|slovak|slovenian|croatian|serbian|bosnian|bulgarian|romanian"
    r"|hungarian|greek|turkish|kurdish|armenian|georgian|persian|farsi|dari|pashto|urdu"
    r"|hindi|bengali|bangla|punjabi|gujarati|marathi|tamil|telugu|kannada|malayalam|sinhala"
    r"|nepali|japanese|korean|chinese|mandarin|cantonese|vietnamese|thai|khmer|lao|burmese"
    r"|indonesian|malay|tagalog|filipino|swahili|amharic|somali|yoruba|igbo|hausa|zulu|xhosa"
    r"|afrikaans|swedish|norwegian|danish|finnish|icelandic|estonian|latvian|lithuanian"
    r"|catalan|basque|galician|irish|welsh|gaelic|yiddish|latin|esperanto|albanian"
    r"|macedonian|maltese|mongolian|kazakh|uzbek|tibetan|quechua|guarani|creole|asl"
    r"|sign\s+language)")


#: Capitalised words that say when: days and months.
_WHEN_NAMES = (r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may"
               r"|june|july|august|september|october|november|december")


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

#: Someone of one's own who is named ("my manager", "my dentist"), or a pet.
_RELATION = (r"(?:best\s+friend|(?:team|tech)\s+lead"
             r"|manager|boss|supervisor|mentor|coach|doctor|gp|dentist|therapist"
             r"|physio|vet|landlord|landlady|accountant|lawyer|attorney|neighbou?r"
             r"|editor|tutor|nanny|babysitter|pediatrician"
             r"|roommate|flatmate|housemate|dog|cat|pet)")
#: A person's name, capitalised, one or two words ("Priya", "Dr. Silva", "Ana Lima").
_PERSON_NAME = (r"(?-i:(?:Dr\.?\s+)?[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)?"
                r"(?:\s+[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)?)?)")
#: Capitalised words that open a sentence pointing at someone without naming them.
_NOT_A_NAMER = (r"(?:this|that|he|she|it|they|who|here|there|everyone|everybody|someone"
                r"|somebody|nobody|one|mine|yours|ours|theirs)")

_DURABLE = _cues(
    ("always", r"\balways\b"),
    ("never", r"\bnever\b"),
    ("allergic", r"\ballergic\b"),
    ("allergy", r"\ballerg(?:y|ies)\b"),
    ("my name", r"\bmy\s+name\b"),
    ("name is", rf"\bname(?:\s+is|{_APOS}s)\b"),
    # "is called" alone would catch "the webhook is called on every push", and a capital
    # after it "the branch is called Main": a person's or a pet's name has an owner ("my
    # dog is called Rex"), or is one's own, or follows a word for one ("a cat named Miso").
    ("is called", rf"\b(?:my|our|your|his|her|their)\s+(?:[\w-]+\s+){{1,2}}(?:is|are|was|were)"
                  rf"\s+(?:called|named)\b|\bi(?:\s+am|{_APOS}m)\s+(?:called|named)\b"),
    ("named", r"\b(?:dog|cat|pet|puppy|kitten|horse|son|daughter|baby|boy|girl|friend|boss"
              r"|manager|colleague|brother|sister|cousin|partner|wife|husband)s?\s+"
              r"(?:called|named)\b"),
    ("birthday", r"\bbirthday\b"),
    ("born", r"\bborn\b"),
    ("live in", r"\bliv(?:e|es|ing)\s+in\b"),
    ("address", r"\baddress\b"),
    ("city", r"\b(?:city|home\s?town)\b"),
    ("moved to", r"\bmoved\s+to\b"),
    ("prefer", r"\bprefer(?:s|red|ence|ences)?\b"),
    ("favorite", r"\bfavou?rites?\b"),
    ("vegetarian", r"\bvegetarian\b"),
    ("vegan", r"\bvegan\b"),
    ("language", rf"\b(?:speak(?:s|ing)?|fluent\s+in|native\s+speaker\s+of)\s+"
                 rf"(?:(?:fluent|native|basic|conversational|some|good|decent|perfect|a\s+little"
                 rf"|a\s+bit\s+of|a\s+few\s+words\s+of)\s+)?{LANGUAGES}\b"
                 r"|\b(?:native|first|mother)\s+(?:language|tongue)\b"),
    # A tool of one's own ("My editor is vim").
    ("own tool", rf"\b(?:my|our|user{_APOS}s)\s+(?:(?:text\s+|code\s+)?editor|ide|browser"
                     r"|terminal|os|operating\s+system|distro)\s+(?:of\s+choice\s+)?is\s+"
                     r"(?:n?vim|neovim|emacs|vs\s?code|visual\s+studio(?:\s+code)?|sublime"
                     r"(?:\s+text)?|nano|helix|zed|pycharm|intellij|webstorm|goland|clion|rider"
                     r"|xcode|eclipse|firefox|chrome|chromium|safari|edge|brave|vivaldi|iterm2?"
                     r"|alacritty|kitty|wezterm|ghostty|windows|macos|linux|ubuntu|debian"
                     r"|fedora|arch(?:\s+linux)?|nixos)\W*$"),
    # "My manager is Priya": a lasting relation named, the name ending the sentence ("My
    # manager is angry", "My flight is AA123" are no such thing). A human editor is named
    # like a manager ("My editor is Jane"), after the tools ("My editor is Vim"). Said the
    # other way round, "Priya is my manager", the name opens the sentence and the relation
    # ends it: the same fact, as lasting ("This is my manager" names no one).
    ("relation named", rf"\b(?:my|our|user{_APOS}s)\s+{_RELATION}\s+is\s+"
                     rf"(?!{_WHEN_NAMES}\b)"  # "My dentist is Tuesday": when, not who
                     rf"{_PERSON_NAME}\W*$"
                     rf"|(?:^\W*|[,;:]\s+|\bthat\s+)(?!(?:{_NOT_A_NAMER}|{_WHEN_NAMES})\b)"
                     rf"{_PERSON_NAME}\s+is\s+"
                     rf"(?:my|our|user{_APOS}s)\s+{_RELATION}\W*$"),
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
    # How one works, not where: "I work remotely" stood durable beside a home ("I live in
    # Lisbon, I work remotely") and, said apart from it, rotated out. "working" is left
    # out: "I'm working from home" is as often for a day.
    ("works remotely", r"\bworks?\s+(?:remotely|from\s+home)\b"),
    # "job" alone would catch every cron and CI job; a person's job comes with an owner.
    ("job", rf"\b(?:my|new|day|his|her|their|\w+{_APOS}s)\s+job\b|\bjob\s+title\b"),
    ("password policy", r"\bpassword\s+polic(?:y|ies)\b"),
    ("deadline", r"\bdeadlines?\b"),
    ("policy", r"\bpolic(?:y|ies)\b"),
)

#: Row 5: who a fact is about. Below the weak short-lived cues: "My wife is Maria" lasts,
#: "My mom is in the hospital this week" does not.
_PERSON = _cues(
    ("wife", r"\bwife\b"),
    ("husband", r"\bhusband\b"),
    ("daughter", r"\bdaughters?\b"),
    ("son", r"\bsons?\b"),
    ("sister", r"\b(?:step-?)?sisters?\b"),
    ("brother", r"\b(?:step-?)?brothers?\b"),
    ("sibling", r"\bsiblings?\b"),
    ("mother", r"\b(?:step-?)?mothers?\b|\b(?:mom|mum|mommy|mummy)s?\b"),
    ("father", r"\b(?:step-?)?fathers?\b|\b(?:dad|daddy)s?\b"),
    ("grandparent", r"\bgrand(?:mother|father|parent|ma|pa)s?\b|\bgrann(?:y|ies)\b"),
    ("grandchild", r"\bgrand(?:son|daughter|child|kid)s?\b|\bgrandchildren\b"),
    ("aunt", r"\baunt(?:ie)?s?\b"),
    ("uncle", r"\buncles?\b"),
    ("cousin", r"\bcousins?\b"),
    ("niece", r"\bnieces?\b"),
    ("nephew", r"\bnephews?\b"),
    ("in-laws", r"\bin-laws?\b"),
    ("partner", r"\b(?:boyfriend|girlfriend|fianc[eé]e?)s?\b"),
    # A parent, child or partner alone is as often a process, a commit or a company's;
    # a person's comes with an owner ("my parents", "our kids"), "parents" plural aside.
    ("parents", r"\bparents\b"),
    ("family", r"\b(?:my|our|your|his|her|their)\s+(?:parent|kids?|child|children|partner"
               r"|family)\b"),
)

#: Row 5 too: a stated liking or dislike of something ("I hate onions", "User loves jazz").
#: A reaction to what was just said ("I love it", "I like your idea") names no object, a
#: pronoun ("I like him") none that lasts, and "I hate to say it, but ..." is a manner of
#: speaking.
_PREFERENCE = _cues(
    ("likes", rf"\b(?:i|we|user|the\s+user|he|she|they)\s+"
              rf"(?:(?:really|also|just|do|does|don{_APOS}?t|doesn{_APOS}?t|do\s+not|does\s+not)"
              rf"\s+){{0,2}}"
              rf"(?:likes?|loves?|hates?|enjoys?|dislikes?|adores?|detests?"
              rf"|can{_APOS}?t\s+stand|cannot\s+stand)\s+"
              rf"(?!(?:it|that|this|these|those|you|your|yours|him|her|them|us|how|what|when"
              rf"|the\s+idea|to\s+(?:say|admit|ask|bother|interrupt|break|tell|report|be\s+that"
              rf"|keep\s+it))\b)\w"),
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
    person = _first_cue(_PERSON, text) or _first_cue(_PREFERENCE, text)
    if person is not None:
        return DURABLE, person
    found = lead_in(strip_markers(text))
    if found is not None:
        return DURABLE, found[0]
    return SHORT_LIVED, None
