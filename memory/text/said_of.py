"""What each statement of a sentence in the user's words is said of, for telling whether
it states a fact.

"I live in Munich and Ana lives in Berlin" joins a statement of the user's to one of
Ana's: read whole, it holds every word of "User lives in Berlin". ``statements_of_each``
cuts a sentence where a statement of the user, someone of theirs
(``owners.statements_apart``) or someone named ("..., and Ana lives ...") opens, so each
is read as of whom it opens with.

"I live in Munich and work in Berlin" says where the user lives, and it is not Berlin:
the clause that says "live" names another place. ``clauses_in`` cuts a statement into
its clauses, and ``names_in`` gives what a clause names (capitalised words and numbers),
so that a clause saying what a fact says of something else lends none of its words to
the others. ``placed_as_in`` tells whether a statement puts a fact's name where the fact
does ("I started at Acme" as "User works at Acme"; not "a meeting with Acme" nor "I was
at Acme yesterday"), and ``points_back_to`` whether its "there" is the place the
statement before it names ("Ana lives in Berlin and I live there too").

A fact that puts the user at a place ("User lives in Berlin", "User works at Acme":
``places_its_names``) is said by a clause that puts them there: "I live nowhere near
Berlin", "far from Berlin" and "I work with Acme" name the place apart from the user
(``named_apart``), and "I live alone" or "I work a lot" say the verb at no place, so
they lend it to no name said elsewhere ("I visited Berlin last year. I live alone.";
"I live there now" points back to Berlin; "here" only to a place the user may be at
as they speak: "I love Berlin. I live here.").

"I love shellfish. I'm allergic to peanuts." holds every word of "User is allergic to
shellfish", yet the allergy it states is to peanuts: a statement saying the fact's
``head_of`` word of an object of its own (``object_of_its_own``) lends that word to no
other statement; "I can't eat shellfish, I'm allergic." and "... I'm allergic to it." do,
and so does "Shellfish too." after it, which only goes on with its list (``goes_on_with``).
Pure functions over strings.
"""

from __future__ import annotations

import re
from itertools import pairwise

from tiermem.memory.text.others_clauses import is_no_one_but_me
from tiermem.memory.text.owners import owner_of, statements_apart
from tiermem.memory.text.plans import times_unnamed, without_times
from tiermem.memory.text.wording import concepts

__all__ = ["clauses_in", "goes_on_with", "head_of", "located_apart", "named_apart",
           "named_where", "names_in", "object_of_its_own", "on_an_errand", "placed_as_in",
           "places_its_names", "points_back_to", "refers_back", "said_of_each",
           "statements_of_each"]

#: Where a clause may end and another begin: "I live in Munich and work in Berlin".
_CLAUSE_BREAK = re.compile(r"\s*[,;]\s*(?:(?:and|but|or)\s+)?|\s+(?:and|but|or|while|whereas)\s+",
                           re.IGNORECASE)
_WORD = re.compile(r"[\w-]+(?:['’]\w+)?")
#: The speaker's own word, capitalised wherever it stands.
_SPEAKER = frozenset({"i", "i'm", "i've", "i'd", "i'll"})
_BEING = frozenset({"is", "was"})
#: What of the user's a name may be as the place a fact puts the user at: "My gym is
#: FitLife" is where the user works out, "My client is Acme" is no place of the user's.
_PLACES = frozenset({
    "gym", "school", "office", "workplace", "employer", "company", "firm", "job", "work",
    "club", "church", "university", "college", "campus", "clinic", "hospital", "practice",
    "pharmacy", "bank", "studio", "salon", "store", "shop", "daycare", "kindergarten", "lab",
})
#: One past occasion at a place ("yesterday", "two weeks ago"; not "since last year").
_ONE_OCCASION = re.compile(
    r"\b(?:yesterday|earlier\s+today|the\s+other\s+day|this\s+(?:morning|afternoon)"
    r"|(?<!\bsince\s)(?<!\bfrom\s)last\s+(?:night|week|weekend|month|year|time|\w+day)"
    r"|(?:a|an|one|two|three|four|five|six|a\s+few|a\s+couple\s+of|\d+)\s+"
    r"(?:days?|weeks?|months?|years?)\s+ago)\b", re.IGNORECASE)
#: An errand that takes one to a place: "for a meeting", "an interview at Acme".
_ERRAND = re.compile(
    r"\b(?:for|a|an|my|our)\s+(?:\w+\s+)?(?:meeting|interview|appointment|visit|demo|tour"
    r"|conference|workshop|presentation)s?\b", re.IGNORECASE)
#: Words that put what a verb says at a place of its own: "I live near the river".
_AT_A_PLACE = frozenset({"in", "near", "at", "on", "by", "outside", "inside", "around",
                         "across", "beside", "behind", "downtown", "abroad", "overseas"})
#: Words that point back to a place named before: "I live there", "in the same city".
_BACK = frozenset({"there", "here", "it", "same", "that", "this"})
#: Words before "there" that make it a point others are placed from, not where one is:
#: "I live far from there", "near there", "north of there".
_FROM_THERE = frozenset({"from", "of", "near", "nearer", "than", "beyond", "past", "outside",
                         "around", "toward", "towards", "behind"})
#: A start at a place on one day is a job begun there: "I started at Acme last week".
#: Words after which a name is a place kept at a distance, or a party rather than where
#: the user is: "nowhere near Berlin", "far from Berlin", "I work with Acme".
_APART = frozenset({"near", "outside", "beyond", "from", "with", "except", "besides"})
#: Words before "to" that keep what follows at a distance: "close to Berlin".
_NEAR_TO = frozenset({"close", "closer", "next", "nearer"})
#: Words after which a fact puts the user at a named place: "in Berlin", "at Acme".
_PLACING = frozenset({"in", "at", "for"})
#: The place a clause ends with, and the word before it ("to Berlin", "and Berlin").
_PLACE_LAST = re.compile(r"\b(\w+)\s+((?:[A-Z][\w'’-]*\s*)+)$")
_JOINING = re.compile(r"\b(?:start|starts|started|join|joins|joined|began|hired)\b",
                      re.IGNORECASE)


def statements_of_each(sentence: str) -> list[str]:
    """``sentence`` cut where a statement of the user or someone of theirs opens
    (``statements_apart``), and where one of someone named does: "I live in Munich and
    Ana lives in Berlin" is "I live in Munich" and "Ana lives in Berlin"."""
    return [piece for part in statements_apart(sentence) for piece in _apart_from_named(part)]


def _apart_from_named(part: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for joint in _CLAUSE_BREAK.finditer(part):
        after = part[joint.end():]
        # A name followed by a verb or "'s" ("Ana lives", "Ana's son", "Acme is hiring")
        # opens a statement of theirs, not the user's; "Ana and I" stays the user's.
        owner = owner_of(after)
        # "Nobody except me and Tom uses vim": the user and Tom are one subject.
        with_me = joint.group().strip().casefold() == "and" and is_no_one_but_me(
            part[start:joint.start()])
        if owner is not None and not owner.user and joint.start() > start and not with_me:
            pieces.append(part[start:joint.start()])
            start = joint.end()
    pieces.append(part[start:])
    return [piece for piece in pieces if piece.strip()]


def clauses_in(statement: str, names: set[str]) -> list[str]:
    """The clauses of ``statement``, cut at commas, semicolons and "and", "but", "or"; a
    list of what ``names`` (a fact's) or capitals name goes on the clause before it: "I
    live in Munich and (in) Berlin", "I'm allergic to Advil and penicillin"."""
    clauses: list[str] = []
    for clause in _CLAUSE_BREAK.split(statement):
        if not clause.strip():
            continue
        # "I went to Munich, where I live, and then Berlin": the list is where one went.
        if clauses and _only_named(clause, names) and not _opens_where(clauses[-1]):
            clauses[-1] = f"{clauses[-1]} and {clause}"
        else:
            clauses.append(clause)
    return clauses


def _only_named(clause: str, names: set[str]) -> bool:
    # A word without concepts ("in", "the") stands before a name as well.
    return all(concepts(word) <= names or names_in(word, opens_sentence=False)
               for word in _WORD.findall(clause))


def names_in(clause: str, *, opens_sentence: bool) -> set[str]:
    """The concepts of what ``clause`` names: its capitalised words and numbers, but "I"
    and a month or day said as a time ("in June"); the first word of a sentence is
    capitalised whatever it is, so it names nothing."""
    words = _WORD.findall(times_unnamed(clause))[1 if opens_sentence else 0:]
    named = [word for word in words
             if word.replace("’", "'").casefold() not in _SPEAKER
             and any(ch.isupper() or ch.isdigit() for ch in word)]
    return concepts(" ".join(named))


def placed_as_in(statement: str, fact: str, names: set[str]) -> bool:
    """Whether ``statement`` says each of ``names`` (a fact's names) after the word the
    fact says it after ("at Acme" in "I've been at Acme since 2019" as in "User works at
    Acme"; not "a meeting with Acme"), or as what a thing of the user's is ("My gym is
    FitLife" for "User works out at FitLife"); not on one occasion or errand there ("I
    was at Acme yesterday for a meeting"), nor as someone of the user's ("My client is
    Acme")."""
    if on_an_errand(statement) or (_ONE_OCCASION.search(statement)
                                     and not _JOINING.search(statement)):
        return False
    fact_words, said_words = _folded(fact), _folded(statement)
    leads = {(before, name) for before, name in pairwise(fact_words)
             if concepts(name) & names}
    if said_words[:1] == ["my"] and _PLACES.intersection(_subject_of(said_words)):
        leads |= {(verb, name) for _, name in leads for verb in _BEING}
    said = set(pairwise(said_words))
    placed = {name for before, name in leads if (before, name) in said}
    return bool(names) and concepts(" ".join(placed)) >= names


def on_an_errand(text: str) -> bool:
    """Whether ``text`` names an errand that takes one somewhere ("for an interview")."""
    return _ERRAND.search(text) is not None


def _folded(text: str) -> list[str]:
    return [word.replace("’", "'").casefold() for word in _WORD.findall(text)]


def _subject_of(words: list[str]) -> list[str]:
    """The words before the first "is" or "was": "my new gym" of "my new gym is FitLife"."""
    ends = [at for at, word in enumerate(words) if word in _BEING]
    return words[:ends[0]] if ends else []


def located_apart(clause: str, relation: set[str], *, placing: bool = False) -> bool:
    """Whether ``clause`` says a word of ``relation`` (a fact's concepts but its names) at
    a place of its own: "I live near the river" says where the user lives, and lends
    "live" to no city named in another sentence; "I live there" points back to one. Of a
    fact that ``places_its_names``, ``placing``, one pointing back to no place says it at
    none: "I live alone", "I work a lot"; "married in June" says it at no place."""
    words = _folded(without_times(clause))
    if _BACK.intersection(words):
        return False
    return placing or any(concepts(word) & relation and following in _AT_A_PLACE
               for word, following in pairwise(words))


def named_where(clause: str, before: str) -> set[str]:
    """What ``clause`` names by opening with "where" and the user: the place the clause
    ``before`` it ends with ("a new flat in Berlin, where we've lived for years", "from
    Munich to Berlin, where I live"), or every name of it when that is a list or no
    place ends it ("Berlin and Munich, where I live" may be either); none for another
    clause ("..., where my sister lives" is hers)."""
    if not _opens_where(clause):
        return set()
    last = _PLACE_LAST.search(before.rstrip())
    if last is None or last.group(1).casefold() in {"and", "or"}:
        return names_in(before, opens_sentence=True)
    return concepts(last.group(2))


def _opens_where(clause: str) -> bool:
    words = _folded(clause)
    return words[:1] == ["where"] and len(words) > 1 and words[1].split("'")[0] in {"i", "we"}


def points_back_to(statement: str, before: str, names: set[str]) -> bool:
    """Whether ``statement`` says "there" of the place the statement ``before`` it names,
    and that place is ``names`` (a fact's) alone: "Ana lives in Berlin and I live there
    too" says where the user lives; after "Ana moved from Munich to Berlin" it may be
    either, and "I live far from there" says it is elsewhere. "here" is where the user
    speaks from, so it is that place only when ``before`` may say the user is there
    (``_may_be_here``): "I love Berlin. I live here.", not "I visited Berlin last year."."""
    words = _folded(statement)
    pointing = {"there", "here"} if _may_be_here(before, names) else {"there"}
    if not any(word in pointing and (at == 0 or words[at - 1] not in _FROM_THERE)
               for at, word in enumerate(words)):
        return False
    # Its first word is the one it is said of ("Ana", "My"): no place.
    named = names_in(before, opens_sentence=True)
    return bool(names) and named == names


#: Words before a place that say the user is at it now, or holds it dear as one may the
#: place one lives: "I'm in Berlin", "I love Berlin" (not "I miss Berlin").
_HERE_LEADS = frozenset({"in", "at", "love", "like", "enjoy", "adore"})
#: Words by which a place named is not where one speaks from: one gone to, come from,
#: visited or to be at ("I'm flying to Berlin tomorrow", "I was in Berlin").
_AWAY = frozenset({"to", "from", "into", "toward", "towards", "visit", "visits", "visiting",
                   "will", "gonna", "going", "tomorrow", "next", "later", "soon", "was",
                   "were", "went", "had", "did", "flew", "came", "saw", "met", "left", "got",
                   "spent", "took", "back", "not", "never", "no"})


def _may_be_here(text: str, names: set[str]) -> bool:
    """Whether ``names`` (a fact's), as ``text`` names them, may be where the user speaks
    from, as "here": said by the user, in the present, after a word that puts the user
    at them or holds them dear ("I'm in Berlin", "I love Berlin"); not "I visited Berlin
    last year", "I'm flying to Berlin tomorrow", "I miss Berlin" nor "My sister lives in
    Berlin", whose "here" may be elsewhere."""
    owner, words = owner_of(text), _folded(text)
    if owner is None or not owner.user or owner.relations or _ONE_OCCASION.search(text):
        return False
    if any(word in _AWAY or word.endswith(("'ll", "'d", "n't"))
           or (len(word) > 4 and word.endswith("ed") and not word.endswith("eed"))
           for word in words):
        return False
    leads = [before for before, word in pairwise(words) if concepts(word) & names
             and not concepts(before) & names]
    return bool(leads) and all(lead in _HERE_LEADS for lead in leads)


#: Words that stand for someone or something said before: "Her name is Anna".
_STANDING_FOR = frozenset({"he", "him", "his", "she", "her", "hers", "they", "them", "their",
                           "theirs", "its", "there"})


#: Words for the user with someone said before: "I met Anna. We got married."
_US = frozenset({"we", "us"})
_EACH = frozenset({"both", "each", "all"})


def refers_back(statement: str, *, us: bool = False) -> bool:
    """Whether ``statement`` says a word for someone or something said before it ("Her
    name is Anna", "I work there now", "It's Rex"): what that said may be read with it.
    With ``us`` (of a fact tying the user to someone), "we" too, unless said of each ("We
    are both married"): "I met Anna at a party. We got married last year." says the user
    married Anna."""
    words = _folded(statement)
    standing = _STANDING_FOR | _US if us and not _EACH.intersection(words) else _STANDING_FOR
    return (any(word.split("'")[0] in standing for word in words)
            or _IT_NAMED.match(statement) is not None)


#: "It" said to be a name, which names what was said before: "My dog isn't Max; it's
#: Rex." Not "It's Rex's bowl", nor "it" of anything else ("It's raining").
_IT_NAMED = re.compile(r"\W*it(?:['’]s|\s+(?:is|was))\s+(?:(?:named|called)\s+)?"
                       r"(?-i:[A-Z])[\w-]*(?![\w'’-])", re.IGNORECASE)


def said_of_each(statement: str) -> bool:
    """Whether ``statement`` says what it says of the user and another each ("We are
    both married"): a "she" after it may be that other, not the one the user is tied to."""
    words = _folded(statement)
    return bool(_EACH.intersection(words)) and any(word.split("'")[0] in _US for word in words)


def places_its_names(fact: str) -> bool:
    """Whether ``fact`` puts the user at a place it names: "User lives in Berlin", "User
    works at Acme" (not "User has lived in Berlin for 10 years"'s number, nor "User has
    a dog named Rex")."""
    words = _WORD.findall(fact)
    return any(before.casefold() in _PLACING and name[:1].isupper()
               for before, name in pairwise(words))


def named_apart(clause: str, fact: str, names: set[str]) -> bool:
    """Whether ``clause`` names ``names`` (a fact's) only at a distance, or as a party
    rather than where the fact puts them: "I live nowhere near Berlin", "I live far from
    Berlin" and "I work with Acme" say nothing of "User lives in Berlin" or "User works at
    Acme"; "I live in Berlin near the river" and "User lives near Berlin" do."""
    fact_words, words = _folded(fact), _folded(clause)
    own = {before for before, name in pairwise(fact_words) if concepts(name) & names}
    # Where each name begins, and the two words before it.
    leads = [tuple(words[max(at - 2, 0):at]) for at, word in enumerate(words)
             if concepts(word) & names and not (at and concepts(words[at - 1]) & names)]
    return bool(leads) and all(_keeps_apart(lead, own) for lead in leads)


def _keeps_apart(lead: tuple[str, ...], own: set[str]) -> bool:
    before = lead[-1] if lead else ""
    if before in own:
        return False
    return before in _APART or (before == "to" and len(lead) == 2 and lead[0] in _NEAR_TO)


#: Words between a fact's subject and the word it says of them: "User is really allergic".
_BEFORE_HEAD = frozenset({"is", "are", "was", "were", "really", "also", "still", "currently",
                          "usually", "always", "often"})
#: Words after a statement's head that stand for what was named before ("allergic to it").
_REFERRING = frozenset({"it", "them", "there", "here", "that", "this", "these", "those",
                        "his", "her", "its", "their", "one", "ones", "same"})
#: Words after a head that say how or when, not of what: "I'm allergic as well", "I like
#: it a lot", "We got married last year".
_HOW = frozenset({"well", "really", "lot", "much", "anymore", "though", "either", "last",
                  "next", "ago", "since", "yesterday", "today", "tonight", "tomorrow", "ever",
                  "day", "days", "week", "weeks", "month", "months", "year", "years",
                  "time", "times", "while", "morning", "evening", "night", "weekend"})


def head_of(fact: str) -> set[str]:
    """The concepts of the word a fact of the user says of them first: "allergic" of
    "User is allergic to shellfish", "like" of "User likes jazz"; none for a fact of
    someone of theirs ("User's dog ...") or opening with a word of no concept ("User has
    a dog")."""
    words = _folded(fact)
    if len(words) < 2 or words[0] != "user":
        return set()
    head = next((word for word in words[1:] if word not in _BEFORE_HEAD), "")
    return concepts(head)


def object_of_its_own(statement: str, head: set[str], fact_concepts: set[str]) -> bool:
    """Whether ``statement`` says ``head`` (a fact's ``head_of``) of something the fact
    does not name: "I'm allergic to peanuts" of "User is allergic to shellfish"; not
    "I'm allergic", "I'm allergic to it" (what it stands for was named before) nor a
    statement naming the fact's own object anywhere ("allergic to peanuts and shellfish"),
    nor a time ("married in June")."""
    words = _folded(without_times(statement))
    at = next((at for at, word in enumerate(words) if concepts(word) & head), None)
    if at is None or (concepts(statement) - head) & fact_concepts:
        return False
    for word in words[at + 1:]:
        if word in _REFERRING:
            return False
        own = concepts(word)
        if own and word not in _HOW and not word.endswith("ly") and not word.isdigit():
            return True
    return False


#: Words by which a statement of only a name goes on with the list before it: "Shellfish
#: too.", "And jazz.", "I mean shellfish."
_GOING_ON = frozenset({"too", "also", "and", "as", "well", "plus", "even", "i", "mean",
                       "meant", "sorry", "actually", "oh", "oops"})


def goes_on_with(statement: str, fact_object: set[str]) -> bool:
    """Whether ``statement`` is only what ``fact_object`` (a fact's concepts but its
    ``head_of``) names, with words that go on with the list before it: "Shellfish too."
    or "Also shellfish." after "I'm allergic to peanuts."; not "Not shellfish."."""
    words = _folded(statement)
    return (any(concepts(word) & fact_object for word in words)
            and all(word in _GOING_ON or (bool(concepts(word)) and concepts(word) <= fact_object)
                    for word in words))
