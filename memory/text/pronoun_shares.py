"""What a statement opened by "he" or "she" that names no one says of the one beside the
pronoun: "She and Tom moved to Porto" is "Tom moved to Porto", "He and I work at Globex"
is "I work at Globex". Left out whole with the pronoun, their share was lost. What only
the two of them can be or do ("He and Tom are friends", "... know each other") is said of
neither alone.
Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.given_names import is_first_name
from tiermem.memory.text.relations import relation_of

__all__ = ["share_beside_pronoun"]

_I = re.IGNORECASE
_OWN_ONE = re.compile(r"(?:my|our)\s", _I)
#: The user beside a pronoun that names no one: "He and I work at Globex", whose share
#: of the user's, left out with his, was lost.
#: Not when what they are or do takes both ("He and I are friends", "... met in 2010"):
#: said of the user alone it is false. Nor after "have": "She and Tom have met before"
#: stored "Tom has met before". Nor a wedding: "He and Tom married in 2010" stored "Tom
#: married in 2010", whom to no longer said.
_TAKES_BOTH = (r"(?:(?:have|had|haven['’]t|hadn['’]t)\s+(?:(?:never|just|already|not|ever)\s+)?)?"
               r"(?:got\s+)?"
               r"(?:are|were|met|meet|talk|talked|argue|argued|fight|fought|date|dated"
               r"|split|broke|hang|hung|agree|agreed|disagree|disagreed|share|shared"
               r"|marry|married|wed|wedded|engaged|divorce|divorced|separate|separated)\b")
#: "both" or "also" after the verb says only that each is there: "He and I are both on
#: call" and "She and Tom are also in Porto", read as what takes both, lost the share.
_BOTH_ARE_SOMEWHERE = (r"(?:(?P<are>are)|(?P<were>were))\s+(?:(?:both|also)\s+){0,2}"
                       r"(?=(?:on|in|at|from|off|away|out|based)\b)")
_AND_I = re.compile(rf"\s+and\s+I\s+(?:{_BOTH_ARE_SOMEWHERE}|(?!{_TAKES_BOTH}))", _I)
#: Words after a subject that are no verb: "He and my wife and I", "He and Tom too".
_NO_VERB = r"(?:and|or|but|nor|too|as|either|neither|together|with|from|of|each)\b"
#: A word before the verb that says how often or when: read as the verb, "She and Tom
#: usually work from home" stored "Tom usuallies work from home". Not verbs in "-ly".
_ADVERB = (r"(?:also|still|now|just|already|recently|finally|never|often|always|sometimes"
           r"|usually|rarely|seldom|ever|(?!(?:apply|reply|rely|supply|fly|multiply|comply"
           r"|rally|tally|bully)\b)[a-z]+ly)")
#: Someone named beside a pronoun that names no one: "She and Tom moved to Porto", whose
#: share of Tom's, left out with hers, was lost. Not "Tom's wife", nor what takes both.
#: A "both" or "each" before the verb says of the two alike: "She and Tom each work at
#: Globex" read "each" as no verb and lost Tom's job.
_AND_ONE = re.compile(
    r"\s+and\s+(?P<who>(?:my|our)\s+[a-z][\w-]*|(?-i:[A-Z][a-z-]+))(?![\w'’])\s+"
    rf"(?:(?:both|each)\s+)?(?P<adverb>{_ADVERB}\s+)?"
    rf"(?:{_BOTH_ARE_SOMEWHERE}|(?!{_TAKES_BOTH}|{_NO_VERB}|{_ADVERB}\b)"
    r"(?P<verb>(?-i:[a-z]+n['’]t|[a-z]+)(?![\w'’])))", _I)
#: What is done by the two of them to or with each other: said of one, "She and Tom know
#: each other" stored "Tom knows each other", and "He and I live together" "User lives
#: together".
_ONE_ANOTHER = re.compile(r"\b(?:each\s+other|one\s+another|together)\b", _I)
#: What the two of them have been or become as a pair, after a verb that says so:
#: said of one, "He and Tom have been friends for years" stored "Tom has been friends
#: for years", and "He and I look alike" "User: I look alike". Not "... have been busy",
#: nor "nervous".
_BECAME_A_PAIR = re.compile(
    r"\b(?:have\s+been|used\s+to\s+be|became|become|remain(?:ed)?|stay(?:ed)?|look(?:ed)?"
    r"|seem(?:ed)?)\s+(?:(?:best|close|good|old|great|such|really|very|still)\s+)*"
    r"(?:alike|the\s+same|(?-i:[a-z]+(?<!ou)s))\b", _I)
#: What says the two of them are told of besides others ("also", "too"): kept in one's
#: share, "She and Tom also live in Porto" stored "Tom also lives in Porto", besides whom
#: the fact no longer says. Nor "both" or "each", said of one: "He and I both work at
#: Globex" stored "User: I both work at Globex". A "too" before a phrase after a comma
#: goes as well: "... work at Globex too, in Porto" stored "Tom works at Globex too, in
#: Porto".
_ALSO = re.compile(r"^(?:(?:both|each)(?:\s+of\s+us)?\s+)?(?:also\s+)?", _I)
_TOO = re.compile(r"(?:\s*,)?\s+(?:too|as\s+well)(?=\s*,|[.!]*$)", _I)
#: The two of them said again after what they do: kept, "He and I work at the hospital,
#: both of us" stored "User works at the hospital, both of us", and "them" in "..., the
#: two of them" left even their share out.
_OF_THE_TWO = re.compile(r"(?:\s*,)?\s+(?:both|the\s+two|each)\s+of\s+(?:us|them)"
                         r"(?=\s*,|[.!]*$)", _I)
#: A verb said of several and as said of one, where that is not the same word.
_OF_ONE = {"are": "is", "were": "was", "have": "has", "do": "does", "aren't": "isn't",
           "weren't": "wasn't", "haven't": "hasn't", "don't": "doesn't"}
#: Verbs said alike of one and of several: modals and pasts not ending in "ed".
_SAID_ALIKE = frozenset({
    "can", "could", "will", "would", "should", "must", "might", "may", "shall", "can't",
    "couldn't", "won't", "wouldn't", "shouldn't", "didn't", "left", "went", "came",
    "took", "got", "began", "made", "lost", "found", "said", "told", "quit", "bought",
    "sold", "ran", "saw", "won", "had", "did", "kept", "held", "sent", "built", "paid",
    "spent", "flew", "drove", "wrote", "gave", "grew", "knew", "became", "put", "set"})
#: What sets the two of them side by side: said of one, "She and Tom have the same
#: birthday" stored "Tom has the same birthday", and "She and Tom have both left" "Tom
#: has both left". Same as whom, both of what, the fact no longer says.
_SIDE_BY_SIDE = re.compile(
    r"\b(?:the\s+same|different|similar|in\s+common|apart|alike|jointly|take\s+turns"
    r"|alternate|(?:have|had|are|were|can|could|will|would|do|did)\s+both"
    r"(?!\s+(?:on|in|at|from|off|away|out|based)\b))\b", _I)
#: The two of them named again by "their" or "them": said of one, "He and Tom live in
#: Porto with their kids" stored "Tom lives in Porto with their kids", and "She and Tom
#: enjoy themselves" "Tom enjoys themselves", whose "their" is no longer whose.
_THEIRS = re.compile(r"\b(?:their|theirs|them|themselves)\b", _I)
#: Where a phrase opens after the verb ("at Globex", ", but in different teams"): one
#: that pairs the two after another phrase is cut off, not the share before it.
_PHRASE_OPENS = re.compile(
    r"(?:\s*,)?\s+(?:but\s+|and\s+)?(?:in|on|at|with|from|for|by|to|near|under|into)\b", _I)
#: All a phrase kept before the one cut off says when it says nothing of its own: "He and
#: I went to school in the same town" cut to "I went to school" said nothing the user
#: told. Only these: taken as any phrase naming no firm, place or year, "He and I work at
#: the hospital on different floors" lost "User works at the hospital".
_SAYS_NOTHING = re.compile(r"(?:\s*,)?\s+(?:to|at|in|from)\s+(?:school|college|university"
                           r"|uni|town|class)\s*", _I)


def share_beside_pronoun(sentence: str, said_from: int) -> str | None:
    """What ``sentence`` says of the user or the one named beside its pronoun, which ends
    at ``said_from``: "He and I work at Globex" is "I work at Globex"; None when no one is
    so named, or what is said takes both of them."""
    sentence = _OF_THE_TWO.sub("", sentence)
    sentence = _without_a_phrase_pairing_them(sentence, said_from) or ""
    if (not sentence or _ONE_ANOTHER.search(sentence, said_from)
            or _BECAME_A_PAIR.search(sentence, said_from)):
        return None  # "He and I know each other" is of no one alone
    if (with_me := _AND_I.match(sentence, said_from)) is not None:
        verb = "am " if with_me["are"] else "was " if with_me["were"] else ""
        return _TOO.sub("", f"I {verb}{_ALSO.sub('', sentence[with_me.end():])}")
    share = _share_of_the_one_beside(sentence, said_from)
    return None if share is None else _TOO.sub("", share)


def _without_a_phrase_pairing_them(sentence: str, said_from: int) -> str | None:
    """``sentence`` without a last phrase that sets the two side by side or names them
    again ("He and I work at Globex in different teams" is "He and I work at Globex"):
    left out whole, the user's job was lost with it. None when what pairs them is no
    phrase of its own ("She and Tom have the same birthday", "... live in different
    cities", "He and I went to school in the same town"), as what is left would say
    nothing."""
    pairing = [found.start() for found in (_SIDE_BY_SIDE.search(sentence, said_from),
                                           _THEIRS.search(sentence, said_from)) if found]
    if not pairing:
        return sentence
    opens = list(_PHRASE_OPENS.finditer(sentence, said_from, min(pairing)))
    if len(opens) < 2 or _SAYS_NOTHING.fullmatch(sentence, opens[0].start(),
                                                 opens[-1].start()):
        return None
    ending = re.search(r"[.!?]*$", sentence.rstrip())
    return sentence[:opens[-1].start()] + (ending[0] if ending else "")


def _share_of_the_one_beside(sentence: str, said_from: int) -> str | None:
    """What ``sentence`` says of the one named beside its pronoun, which ends at
    ``said_from``: "She and Tom moved to Porto" is "Tom moved to Porto"; None when no one
    is so named, or what is said takes both of them."""
    beside = _AND_ONE.match(sentence, said_from)
    if beside is None:
        return None
    who = beside["who"]
    if _OWN_ONE.match(who):
        if relation_of(who.split()[-1].casefold()) is None:
            return None  # "He and my old friend work ...": "old" is no one
    elif not is_first_name(who):
        return None  # "He and Berlin ...": no one
    rest = sentence[beside.end():]
    if beside["verb"] is None:  # "are on call": "is on call"
        verb, rest = ("is" if beside["are"] else "was"), f" {rest}"
    else:
        verb = _said_of_one(beside["verb"].replace("’", "'"))
    adverb = _ALSO.sub("", beside["adverb"] or "")
    return f"{who[:1].upper()}{who[1:]} {adverb}{verb}{rest}"


def _said_of_one(verb: str) -> str:
    """``verb`` as said of several ("work", "moved") as said of one ("works", "moved")."""
    if verb.casefold() in _OF_ONE:
        return _OF_ONE[verb.casefold()]
    if verb.casefold() in _SAID_ALIKE or verb.casefold().endswith(("ed", "n't")):
        return verb
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return f"{verb}es"
    if len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        return f"{verb[:-1]}ies"
    return f"{verb}s"
