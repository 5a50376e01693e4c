"""What a sentence in the user's words says is so, for telling whether it states a fact.

"I'd love to live in Berlin", "I'm planning to move to Berlin", "If I lived in Berlin",
"I almost moved to Berlin" and "I don't live in Berlin" share every word that matters with
"User lives in Berlin", yet none says the user lives there: a wish, a plan, a condition, a
near thing or a denial comes before what they say, as "quit" or "stopped" comes before what
the user gave up. "I moved away from Berlin" names the city the user left, "I left Acme"
the employer ("two days left at Acme" is what remains; "nothing left for me at Acme" has
none there). "I'm moving to Berlin next month", "I'm moving to Berlin" and "I'd been
meaning to move to Berlin" are plans too (memory/text/plans.py). "Living in Berlin is
expensive" says it of no one, and "You live in Berlin" of the one the user speaks to.
``asserted_concepts`` keeps the concepts (memory/text/wording.py) of the parts of a sentence
that say what they say is so; ``hedged`` tells a fact that is itself worded so ("User wants
to move to Berlin", "User doesn't eat meat"), whose statements say it with those words.

A fact of the user alone ("User lives in Berlin", not "User has a dog named Rex", whose dog
"he" may be) is said of someone else in a part that names them by "he", "she" or "they"
before it ("He lives in Berlin", "I think she lives in Berlin"; not "She knows I live in
Berlin"): ``of_user_alone`` tells such a fact.

"I used to live in Berlin" and "I'd been living in Berlin" ("I had") are said to be so:
they state the residence the fact names, only earlier, and a note that it was forgotten
shows nothing the sentence does not; "I'll always live in Berlin" says it is so now and
on. Pure functions over strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise

from tiermem.memory.text.cues import DONE, TIMELESS, not_so
from tiermem.memory.text.mine import opens_with_mine
from tiermem.memory.text.moves import says_a_move, without_places_left
from tiermem.memory.text.owners import owner_of, relation_of
from tiermem.memory.text.plans import (
    after_it_comes,
    is_start_to_come,
    is_time_to_come,
    planned,
)
from tiermem.memory.text.wording import concepts

__all__ = ["asserted_concepts", "hedged", "is_others", "of_user_alone", "spurns"]

#: Verbs of what one eats, and the words after them that say where rather than what.
_DIET = frozenset({"eat", "drink"})
_WHERE_ONE_EATS = frozenset({"at", "in", "with", "there", "here", "out", "anywhere"})
#: Whom, in the user's own words, a part may be said of: the user, or someone else. "You"
#: is the one the user speaks to, or anyone ("You know, I live in Berlin" says it still).
_USER = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our"})
_ANOTHER = frozenset({"he", "she", "they", "his", "her", "their"})
#: Words for others the user is not one of: "Where I'm from, people hate vim".
_OTHERS = frozenset({"people", "everyone", "everybody", "someone", "somebody", "nobody",
                     "anyone", "anybody", "folks", "others"})
#: Groups of the user's that say nothing of the user alone: "My team uses vim".
_GROUPS = frozenset({"team", "teams", "family", "department", "class", "classmates", "crew",
                     "staff", "household"})
#: Words that open a clause saying which of others are meant: "everyone who I know".
_RELATIVE = frozenset({"who", "whom", "that"})
#: Words that follow several people, the subject still theirs: "my parents both speak".
_ME = frozenset({"me", "myself"})
_EACH_OF_THEM = frozenset({"all", "both", "each"})
_YOU = frozenset({"you", "your", "yours", "yourself", "yourselves"})
_PRONOUNS = _USER | _ANOTHER | _YOU
#: Verbs that follow a gerund that is a sentence's subject: "Living in Berlin is expensive"
#: says nothing of whether the user lives there ("Living in Berlin since 2020." does).
_OF_A_GERUND = frozenset({
    "is", "isn't", "was", "wasn't", "are", "were", "can", "can't", "could", "would", "will",
    "won't", "must", "might", "may", "should", "has", "had", "seems", "sounds", "feels",
    "gets", "costs", "sucks", "means", "makes", "takes", "becomes", "became",
})
#: Words by which a fact ties the user to someone "he", "she" or "they" may stand for.
_TIES = frozenset({"has", "have", "had", "owns", "owned", "married", "engaged", "dating",
                   "with"})
#: Light verbs by which a fact is said by its object named alone ("vim is my editor" of
#: "User uses vim"), each with its forms.
_LIGHT_VERBS = tuple(frozenset(forms.split()) for forms in (
    "use uses used using", "take takes took taken taking", "have has had having",
    "own owns owned owning"))
#: Words that speak against what a statement names: "I hate vim", "vim is awful".
_AVERSE = frozenset({
    "hate", "hates", "hated", "dislike", "dislikes", "disliked", "loathe", "loathes",
    "loathed", "detest", "detests", "despise", "despises", "awful", "terrible", "horrible",
    "worst", "sucks", "suck", "annoying", "unbearable",
})
#: What, after "too", speaks against a thing as one's own: "vim is too hard for me".
_TOO_HARD = frozenset({"hard", "difficult", "complicated", "complex", "confusing"})
#: Words between a fact's subject and its verb: "User also uses vim".
_BEFORE_VERB = frozenset({"also", "still", "currently", "usually", "always", "often",
                          "really", "now"})
_WORD = re.compile(r"[\w-]+(?:'\w+)?")
#: Where one part of a sentence ends and another, which may say otherwise, begins.
_PARTS = re.compile(r"\s*[,;:()\u2013\u2014]\s*|\s+(?:but|although|though|whereas)\s+",
                    re.IGNORECASE)
#: A part that says where the user is at the place the part before it ends with.
_WHERE = re.compile(r"where\s+(?:i|we)\b", re.IGNORECASE)
_PLACE_LAST = re.compile(r"\b(?:in|at|to)\s+((?:[A-Z][\w'’-]*\s*)+)$")
#: The concepts of a move, which a word of living shares ("residence").
_A_MOVE = frozenset(concepts("moving relocating emigrating"))


def _words(text: str) -> list[str]:
    return _WORD.findall(text.replace("’", "'"))


def hedged(fact: str) -> bool:
    """Whether ``fact`` is itself a wish, plan, condition or denial: its statements say
    so in its own words, so they are read whole."""
    words = _words(fact)
    return any(not_so(words, at) for at in range(len(words)))


def of_user_alone(fact: str) -> bool:
    """Whether ``fact`` is of the user alone: of no one of theirs, naming none, and tying
    them to no one ("User is married to Anna": "she" may be Anna)."""
    whose = owner_of(fact)
    words = [word.casefold() for word in _words(fact)]
    return (whose is not None and whose.user and not whose.relations
            and not _TIES.intersection(words)
            and not any(relation_of(re.sub(r"'s$", "", word)) for word in words))


def _says_so(words: list[str], wanted: set[str], read_cues: bool, user_alone: bool,
             users: bool = False) -> int | None:
    """Where in ``words`` what they say of the fact begins, or None if they do not say it:
    whether none of ``words`` before the first that holds one of ``wanted`` (a fact's
    concepts) says it is not so: "I'd love to live in Berlin" does not, "I live in Berlin
    and would never leave" does; nor says it of "you", or, of a fact of the user alone, of
    another, by a pronoun or as the subject of that word ("... when my wife works at
    Acme", "people hate vim", "Everyone I know uses vim"), or, of any fact of the user's
    own (``users``: "User has a dog named Rex"), of others the user is not one of
    ("Everyone I know has a dog named Rex"; "My family has a dog" may be theirs too). A
    word of the fact that only says which others are meant is not said: "Everyone at Acme
    knows I work at Acme" says it from the user's "I" on, "Everyone at Acme says I work
    hard" says no job there."""
    another, start = False, 0
    for at, word in enumerate(words):
        if concepts(word) & wanted:
            before = words[:at]
            if _me_and(before):
                return start
            if another or (user_alone and _subject_another(before)):
                return None
            of_others = ((user_alone and _said_of_others(before))
                         or (users and not _owned(before)
                             and _said_of_others(before, groups=False)))
            if not of_others:
                return start
            # Past the others, a verb of the user's own may still say the fact.
            start = -1
        elif start < 0 and word.casefold().split("'")[0] in _USER:
            # "... and me work at Acme", "... loves my dog Rex": the user's part opens
            # here, and the fact's word before it was the others'.
            start = at
        if read_cues and not_so(words, at) and not _a_diet(words, at, wanted):
            return None
        pronoun = word.casefold().split("'")[0]
        if pronoun in _USER:
            another = False
        elif pronoun in _YOU or (user_alone and pronoun in _ANOTHER):
            another = True
    return None if start < 0 else start


def _me_and(before: list[str]) -> bool:
    """Whether ``before`` is a subject of several that names the user first, who is one of
    them, and nothing after it: "Me and my team", "I and my wife", "Me and Anna both";
    "Me and Tom know he" ends with another's subject."""
    folded = [word.casefold() for word in before]
    if len(folded) < 3 or folded[0] not in _ME | {"i"} or folded[1] != "and":
        return False
    others = folded[2:]
    while others and others[-1] in _EACH_OF_THEM | _BEFORE_VERB:
        others.pop()
    if others[:1] in (["my"], ["our"]):
        return 2 <= len(others) <= 3 and not _PRONOUNS.intersection(others[1:])
    return len(others) == 1 and before[2][:1].isupper()


def _subject_another(before: list[str]) -> bool:
    """Whether the word ending ``before``, past words like "still", is someone of the
    user's or others: the subject of the word that follows, not the user."""
    subject = next((w.casefold() for w in reversed(before)
                    if w.casefold() not in _BEFORE_VERB | _EACH_OF_THEM), "")
    return subject in _OTHERS or relation_of(re.sub(r"'s$", "", subject)) is not None


def _said_of_others(before: list[str], groups: bool = True) -> bool:
    """Whether others the user is not one of ("everyone", "people", "my team") are the
    subject of the word after ``before``, past what says which of them are meant:
    "Everyone I know uses vim", "Everyone at Acme works hard"; not when the user is
    the subject after them ("Everyone knows I use vim", "I told everyone I use vim").
    Without ``groups``, a group of the user's is no others ("My family has a dog")."""
    folded = [word.casefold() for word in before]
    opened: int | None = None
    for at, word in enumerate(folded):
        # "Everyone's dog is named Rex": what is theirs is no more the user's than they are.
        if _possessor(word) in _OTHERS or (groups and word in _GROUPS and at
                               and folded[at - 1] in {"my", "our"}):
            opened = at
        elif opened is not None and ((word.split("'")[0] in {"i", "we"} and not _describes(
                folded, opened, at)) or (word in _ME and folded[at - 1] == "and")):
            # "Everyone knows I use vim"; "My team and me use vim" is the user's too.
            opened = None
    return opened is not None


def _possessor(word: str) -> str:
    """``word`` without the "'s" that makes it a possessive or a contraction."""
    return re.sub(r"['’]s$", "", word)


def is_others(word: str) -> bool:
    """Whether ``word`` names others the user is not one of: "everyone", "people"."""
    return word.casefold() in _OTHERS


def _owned(before: list[str]) -> bool:
    """Whether the word after ``before`` is the user's own, whoever speaks of it:
    "Everyone loves my dog Rex", "... knows our new dog"."""
    return bool({"my", "our"}.intersection(word.casefold() for word in before[-2:]))


def _describes(folded: list[str], opened: int, at: int) -> bool:
    """Whether the user's pronoun at ``at`` opens a clause telling which others the word
    at ``opened`` means ("everyone I know", "people who we met"): it follows them, and a
    verb of its own does ("I told everyone I use vim" says the user's own)."""
    follows = at == opened + 1 or (at == opened + 2 and folded[opened + 1] in _RELATIVE)
    return follows and any(word not in _BEFORE_VERB for word in folded[at + 1:])


def _a_diet(words: list[str], at: int, wanted: set[str]) -> bool:
    """Whether ``words[at]`` denies only eating or drinking what follows, a verb the fact
    does not say: "I can't eat shellfish" tells what the user keeps from, as "allergic to
    shellfish" does; "I can't eat at Acme" and "I don't eat meat" of "User eats meat" deny."""
    folded = words[at].casefold()
    if not (folded.endswith("n't") or folded == "cannot") or at + 2 >= len(words):
        return False
    verb, what = words[at + 1].casefold(), words[at + 2].casefold()
    return verb in _DIET and not concepts(verb) & wanted and what not in _WHERE_ONE_EATS


def _of_a_gerund(words: list[str], wanted: set[str]) -> bool:
    """Whether ``words`` open with the fact's verb as the subject of another verb ("Living
    in Berlin is expensive"), said of no one; not so when the user comes first ("Living in
    Berlin, I ...", "Living in Berlin I have ...")."""
    if not words or not words[0].casefold().endswith("ing") or not concepts(words[0]) & wanted:
        return False
    for word in words[1:]:
        folded = word.casefold()
        if folded.split("'")[0] in _USER:
            return False
        if folded in _OF_A_GERUND:
            return True
    return False


def asserted_concepts(sentence: str, wanted: Iterable[str], *, read_cues: bool = True,
                      user_alone: bool = False, users: bool = False,
                      moving: bool = False, leaving: bool = False) -> set[str]:
    """The concepts of the parts of ``sentence`` (cut at commas, semicolons, "but" ...)
    that say so what they say of ``wanted``, a fact's concepts: with ``read_cues``, not one
    a wish, plan, condition, near thing or denial opens before its first word of the fact,
    nor the place a part moving away from it names ("I moved from Berlin to Paris":
    Paris) unless the fact names one left itself (``leaving``: "User moved from
    Berlin"), nor one planned for a time to come, naming one by what is to happen then
    ("Once I live there"), or opening with the fact's verb as its subject, nor, but with
    ``moving`` (the fact is a move under way itself: "User is moving to Berlin"), one
    saying the user is moving, and with it, no part saying no move says one ("I live in
    Berlin"); not one said of "you"; with ``user_alone``, not one said of "he", "she",
    "they" or others; with ``users`` (a fact of the user's own), not one said of others
    the user is not one of ("Everyone I know has a dog"), but one opening with "mine" says
    what the part before names ("..., mine is Rex"). A part opening with "where I"
    or "where we" says it of the place the part before it ends with."""
    wanted = set(wanted)
    said: set[str] = set()
    parts = _PARTS.split(sentence)
    for at, part in enumerate(parts):
        kept = without_places_left(part) if read_cues and not leaving else part
        words = _words(kept)
        # "Next month, I'm moving ..." and "I work at Acme, starting next month".
        time_near = ((at > 0 and is_time_to_come(parts[at - 1], wanted))
                     or (at + 1 < len(parts) and is_start_to_come(parts[at + 1], wanted)))
        of_no_one_now = read_cues and (_of_a_gerund(words, wanted)
                                       or planned(kept, wanted, time_near=time_near,
                                                  moving=moving)
                                       or (not moving and after_it_comes(kept, wanted)))
        start = (None if of_no_one_now
                 else _says_so(words, wanted, read_cues, user_alone, users))
        if start is not None:
            own = " ".join(words[start:]) if start else kept
            # "I live in Berlin" shares "residence" with "User is moving to Berlin" but
            # says no move; "I moved to Berlin" says it, made.
            said |= concepts(own) - (_A_MOVE if moving and not says_a_move(kept) else set())
            # "..., a new flat in Berlin, where we've lived for years": "where" is Berlin.
            place = _PLACE_LAST.search(parts[at - 1]) if at and _WHERE.match(kept) else None
            said |= concepts(place.group(1)) if place else set()
            # "Everyone I know has a dog, mine is Rex": the user's one is a dog.
            said |= _named_before_mine(parts, at) if users else set()
    return said


def _named_before_mine(parts: list[str], at: int) -> set[str]:
    """The concepts of what the part before ``parts[at]`` names when ``parts[at]`` opens
    with "mine" ("Everyone I know has a dog, mine is Rex"), but its names: "..., a dog
    named Max, mine is Rex" gives the user no Max."""
    if not at or not opens_with_mine(parts[at], parts[at - 1]):
        return set()
    return concepts(" ".join(word for word in _words(parts[at - 1]) if word.islower()))


def spurns(statement: str, fact: str) -> bool:
    """Whether ``statement`` speaks against what ``fact`` says the user uses, takes, has
    or owns without saying that verb, or that it is theirs: "I hate vim", "vim is awful"
    and "vim is too hard for me" say no use of it, though "vim is my editor" says "User
    uses vim"; "I hate using vim" and "I hate my dog Rex" say it. "I love vim" is no
    aversion: one's liking for a tool is of one's own."""
    fact_words = [word.casefold() for word in _words(fact) if word not in _BEFORE_VERB]
    # The verb after the user ("User uses") or someone of theirs ("User's son uses").
    subject = 2 if fact_words[:1] == ["user's"] else 1
    verb = fact_words[subject] if fact_words[:1] in (["user"], ["user's"]) and len(
        fact_words) > subject else ""
    forms = next((forms for forms in _LIGHT_VERBS if verb in forms), None)
    words = [word.casefold() for word in _words(statement)]
    averse = next((at for at, (word, following) in enumerate(pairwise([*words, ""]))
                   if word in _AVERSE or (word == "too" and following in _TOO_HARD)), None)
    if forms is None or averse is None:
        return False
    # "I have always hated vim": "have" is the tense of what follows, not the fact's verb.
    said = [word for at, word in enumerate(words)
            if word in forms and not (word in _LIGHT_VERBS[2] and _participle(words[at + 1:]))]
    return not said and not {"my", "our"}.intersection(words[averse:])


def _participle(words: list[str]) -> bool:
    done = next((word for word in words if word not in TIMELESS), "")
    return done in DONE or done.endswith("ed")
