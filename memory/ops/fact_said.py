"""Whether a user's message says what a forgotten fact names (``says``), for the note a
search result carries that it states a forgotten fact, and which statements of such a
message hold part of it (``holds_part_of``), for the offline policy not to quote them.
"""

from __future__ import annotations

import re
from functools import partial
from itertools import pairwise

from tiermem.memory.ops.fact_clauses import (
    named_otherwise,
    names_denied,
    names_of_the_user,
    of_the_fact,
)
from tiermem.memory.ops.fact_names_given import (
    apposed_name,
    called_by_others,
    kinds_alike,
    without_others_named,
)
from tiermem.memory.ops.fact_owner import of_whom, pet_named, reading
from tiermem.memory.ops.fact_statements import (
    beside_me,
    statements_of_someone,
    the_users_alone,
)
from tiermem.memory.text.asserted import (
    asserted_concepts,
    hedged,
    of_user_alone,
    spurns,
)
from tiermem.memory.text.extract import is_question
from tiermem.memory.text.longer_names import inside_longer_names
from tiermem.memory.text.mine import (
    kinds_had,
    kinds_met,
    kinds_named,
    kinds_owned,
    opens_with_mine,
    same_kind,
)
from tiermem.memory.text.moves import (
    left_unsaid,
    lived_before_moving,
    places_left,
    places_reached,
    says_a_move,
)
from tiermem.memory.text.others_clauses import (
    only_the_user,
    others_clauses,
    without_others_clauses,
)
from tiermem.memory.text.owners import Owner, owner_of, relation_of
from tiermem.memory.text.plans import (
    a_move_of_its_own,
    months_liked,
    without_times,
)
from tiermem.memory.text.said_of import (
    goes_on_with,
    head_of,
    named_apart,
    names_in,
    object_of_its_own,
    placed_as_in,
    points_back_to,
    refers_back,
    said_of_each,
)
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.wording import concepts

#: The concepts of a move, which a word of living shares ("residence").
_A_MOVE = frozenset(concepts("moved relocated emigrated"))
#: Light verbs a statement may say for one another: "I go to Lincoln Elementary" says
#: "User attends Lincoln Elementary", and "I am called Tom" "User is named Tom".
_NAMING = frozenset(concepts("named called name"))
#: How a fact of the user's own name opens: "User is Tom", "User is named Tom", "User's
#: name is Tom"; "User works out at Iron Works" names a gym, though its words are all names.
_USERS_NAME = re.compile(r"^User(?:\s+is(?:\s+(?:named|called))?|['’]s\s+name\s+is)\s")
_SAID_ALIKE = (frozenset(concepts("attend attends go goes")), _NAMING)


def says(text: str, fact: str) -> bool:
    """Whether the statements of ``text`` (sentences that are no question) say what ``fact``
    names: of whom the fact is (``may_be_one``: "My sister goes to FitLife too" is not "User
    works out at FitLife"), every name and number of it, and every concept that sets it
    apart: each but the subject's and light ones (``reading``; a relation the sentence's subject
    names is said in any word of it or one taking it in: "mom" for "mother", "kid" for
    "son"; of a fact that is only light words and names, one of those words too, or the
    names where the fact puts them: "I started at Acme", not "a meeting with Acme"), or,
    when that leaves none, at least half of those but the subject's; in one sentence, or in
    the sentences of that person together ("I have a dog. His name is Rex."; a name only
    through a statement pointing back to it: not "I met Anna at a party. I'm married." of
    "User is married to Anna", nor "We are both married. She is Anna.", but "... We got
    married." after a statement of the user naming only her, and "... I married her in
    June.", whose month is a time, not a name: "I married Jane in June" is no marriage to
    June, nor "I love June. We got married.", a month liked; "We both have a dog. His name
    is Rex." names one that may be the user's; "I saw a dog named Rex.", "I saw a dog. His
    name is Rex." or "I walked a neighbour's dog named Rex." none ("We adopted a puppy. His name
    is Rex." does), nor "I like dogs.
    Mine is a cat named Rex.", a name given to another kind, but "Mine is a mutt named
    Rex" one, and "Mine is a cat named Rex" a pet Rex), but a clause saying the fact of
    another name ("I live in Munich") lends none of its words (but a move from it goes
    on: "I moved from Munich, where I lived, to Berlin"; the place a move leaves is not
    where it went: not "User moved from Berlin", nor when the move is only wished or denied:
    "I might move from Berlin", nor a place said before a move naming none it left but as
    lived in: "I visited Berlin, then moved" left none, and living there is no move from it:
    "I lived in Berlin", but "... Then I moved to Munich." after it left it, nor a move
    there: "I live in Berlin" says no "User moved to Berlin"), and a
    statement of someone named ("..., and Ana lives in Berlin", "I visited Anna, who lives
    in Berlin", "Nobody but me knows Anna uses vim", also of a fact of Tom's: "Nobody but
    me and Tom knows Anna uses vim") is theirs, and "As someone who uses vim, ..." the
    user's, and a message naming no one a fact is of says nothing of them ("My dog is
    called Rex" of "Tom has a dog named Rex"), nor the user's own pet after them ("I met
    Tom. My dog is called Rex."); each said to be so, not
    wished, planned, supposed or denied ("I'd love to live in Berlin", ``asserted_concepts``)
    unless the fact is worded so itself, nor only spoken against ("I hate vim" of "User uses vim",
    ``spurns``; "... I use it daily." after it says so), and, of the user alone, not of
    "he", "she" or another saying it ("... when my wife works at Acme"), nor, of any fact of
    the user's, of others ("Everyone I know has a dog named Rex", "Everyone but me ...";
    "Mine is Rex." or "Mine's a puppy." after it says the user's). The fact was learned in
    the message's turn, but a model may have stored there what the message never said
    ("Hello" and "User's birthday is May 3"), or only shares light words with ("I take
    vitamins daily."): the note would tell the model a forgotten fact the message does not
    show. The offline policy quotes none of the statements of such a message that holds part
    of it (``holds_part_of``, agent/offline_quotable.py)."""
    wanted, names, distinctive, whose, kin = reading(fact)
    light = wanted - distinctive
    light |= {word for alike in _SAID_ALIKE if alike & light for word in alike}
    # Its names and light words alone ("User works at Acme"): a statement naming Acme
    # says it with one of those words, or with Acme where the fact puts it ("I started at
    # Acme"); "I have a meeting with Acme" does not.
    only_named = bool(distinctive) and distinctive <= names and bool(light)
    head = head_of(fact)
    # "User moved from Munich" names the place left; "User's wedding is in June" a time.
    left, kinds = places_left(fact), kinds_named(fact)
    # "User moved to Berlin" names where a move went.
    reached = names & places_reached(fact)
    timed = names - concepts(without_times(fact)) | names & months_liked(fact)
    # "I love June. She is my wife.": read whole, the month liked is someone.
    liked = months_liked(text)

    def said_by(said: set[str]) -> bool:
        if not names <= said or (only_named and not light & said):
            return False
        if distinctive:
            return distinctive <= said
        return bool(wanted & said) and 2 * len(wanted & said) >= len(wanted)

    # "I'd love to live in Berlin" is no statement of "User lives in Berlin"; of "User
    # wants to live in Berlin" a statement says "want" itself.
    alone = of_user_alone(fact)
    # "We" after a name is the user and them, of a fact tying the user to someone.
    of_user = whose is not None and whose.user and not whose.relations
    tied = of_user and not alone
    # A fact of the user's own name alone: "User is Tom", "User is named Tom".
    users_name = (of_user and bool(names) and not (wanted - names - _NAMING)
                  and _USERS_NAME.match(fact.strip()) is not None)
    # The one named a fact of someone else is of ("Tom" of "Tom uses vim").
    named_subject = concepts(whose.name) if whose and not whose.user and whose.name else set()
    # "My dog is called Rex." or "There is a dog named Rex." says nothing of Tom's dog: a
    # fact of someone named needs them named, before any "he" or "she" may be them.
    if named_subject and not named_subject & concepts(text):
        return False
    # "My sister wants a dog named Rex": her wish comes after the word for her, which says
    # only whose the fact is, so a statement of the fact opens past it.
    hedged_fact = hedged(fact)
    read = partial(asserted_concepts, wanted=wanted - kin or wanted, read_cues=not hedged_fact,
                   user_alone=alone, users=bool(whose and whose.user) and not alone,
                   moving=a_move_of_its_own(fact), leaving=bool(left))
    together: set[str] = set()
    # Read apart, the statements of one sentence are each of whom they open with: "I'm
    # fine, but my son is allergic to peanuts" says nothing of the user's allergy.
    parts = ((at == 0, part) for sentence in split_sentences(text) if not is_question(sentence)
             for at, part in enumerate(statements_of_someone(sentence)))
    # A name said apart joins the rest only through statements pointing back to one
    # another: "I'm married. Her name is Anna." says it, "I met Anna at a party. I'm
    # married." says no marriage to Anna. ``linked`` holds those of the latest run.
    before, withheld = "", False
    spurned: set[str] = set()
    linked: set[str] = set()
    lent: set[str] = set()
    for opens_sentence, part in parts:
        # "I visited Anna, who lives in Berlin": the clause is Anna's, not the user's.
        # "Nobody except me uses vim" says it of the user alone.
        # "Nobody but me and Tom knows Anna uses vim" is Anna's, not "Tom uses vim".
        # "I have a cat that is named Rex": the clause is the pet's, of a fact's kind.
        own_part = only_the_user(without_others_clauses(
            part, own=wanted | named_subject | kinds_alike(part, kinds))
            if of_user or named_subject or (whose and whose.relations) else part)
        # "Everyone calls me Tom" is said by others, of the user's own name.
        if users_name and names <= called_by_others(part):
            return True
        said, before_this = of_whom(own_part, whose, kin, read, wanted - names), before
        before = part
        if said is None or spurns(part, fact):
            # "I'm allergic to peanuts. My son is allergic to eggs. Shellfish too.": the
            # list that goes on may be the son's.
            withheld = False
            lent, linked = lent | _names_lent(linked, names, wanted), set()
            # "I hate vim. I use it daily.": what is spurned is what "it" is used.
            spurned = concepts(part) & (distinctive | names) if said is not None else set()
            continue
        # "In Berlin, I live alone": the place opens the statement said at it.
        placed = not opens_sentence and bool(names) and concepts(before_this) == names
        # "We are both married. She is Anna.": "she" may be the other one married. One
        # named of a kind had ("We both have a dog. His name is Rex.") may be the user's,
        # as of "User's dog is Rex": a note missed loses more than one too many.
        of_each = tied and not kinds and said_of_each(before_this)
        if not (placed or (refers_back(part, us=tied and _met_alone(before_this, names))
                           and not of_each)):
            lent, linked = lent | _names_lent(linked, names, wanted), set()
        said &= of_the_fact(part, fact, wanted - names, names, opens_sentence, read,
                             placed) | kin
        said -= named_otherwise(part, names, left, timed, liked, reached)
        if not hedged_fact:
            said -= names_denied(part, names)
        # "I'm Tom's dad" or "I named my son Tom" gives the user no name Tom.
        if users_name:
            said -= names - names_of_the_user(part)
        # "I live in Berlin" or "I lived in Berlin" shares "residence" with "User moved
        # from Berlin" or "User moved to Berlin" but says no move, the user maybe born
        # there; "... Then I moved to Munich." after it left the place lived in.
        if (left or reached) and not says_a_move(part):
            said -= _A_MOVE
        elif left and left_unsaid(part) and (lived := _lived_before(part, before_this, left)):
            said |= lived | wanted & _A_MOVE
        # "I like dogs. Mine is a cat named Rex.": Rex is the cat.
        named_kinds = kinds_named(part)
        # "Tom saw a cat named Rex": the word names the cat, not a user called Tom.
        if only_named and light & _NAMING:
            said -= _NAMING - concepts(without_others_named(part, named_kinds, names))
            # "I'm Tom" or "This is Tom speaking" gives the user the name as "I am called
            # Tom" does; "I'm Tom's dad" gave none and kept no name above.
            if users_name and names <= said:
                said |= light & _NAMING
        said -= {name for name, kind in named_kinds.items()
                 if name in kinds and not same_kind(kind, kinds[name])}
        # "I have a cat named Rex" names the fact's pet Rex, "I saw a cat named Rex" none,
        # nor "I saw a dog named Rex" the user's dog Rex; "Tom has a cat named Rex" Tom's.
        owned = kinds_owned(own_part, of_another=bool(named_subject) and not _users(own_part))
        owned |= pet_named(own_part, kinds)
        said |= {word for name, kind in owned.items()
                 if name in said and name in kinds for word in concepts(kinds[name])}
        said |= kinds_had(own_part, {kind.casefold() for kind in kinds.values()},
                          of_kin=bool(whose and whose.relations))
        # "I saw a dog. His name is Rex.": the dog met is none of the user's.
        if of_user:
            said -= beside_me(part)
            # "Mine's a kitten named Tom" names no user Tom.
            said -= named_kinds.keys() - (owned.keys() if kinds else set())
            said -= kinds_met(own_part, {kind.casefold() for kind in kinds.values()})
        elif named_subject:
            # "Tom and I walked my dog Rex": the dog is the user's, none of Tom's.
            said -= the_users_alone(part)
        elif _of_them_alone(own_part, whose):
            # "My sister saw a dog named Rex": the dog she has is one named, not one met.
            # "My son is called Tom" names him, no pet.
            said -= {name for name, kind in named_kinds.items() if relation_of(kind) in
                     (None, *_PET_RELATIONS)} - kinds_owned(own_part, of_another=True).keys()
        elif (pet := _users_pet(whose)) is not None:
            # "Tom saw a dog named Rex" or "Tom has a dog. He is Rex." names no dog of
            # the user's: only one the user has is theirs.
            said -= {name for name, kind in named_kinds.items()
                     if same_kind(kind, pet)} - owned.keys()
            said -= kinds_met(own_part, {pet})
        said |= apposed_name(part, before_this) & names
        # "We are both married. Her name is Anna.": "her" may be the other one's wife.
        if of_each and refers_back(part):
            said -= names
        # "Everyone I know has a dog. Mine is named Rex.": "mine" is the user's one of what
        # the statement before names, whoever that was said of (not its names: "... a dog
        # named Max. Mine is Rex." says no Max of the user's).
        if opens_with_mine(part, before_this):
            said |= read(before_this, users=False) - names_in(before_this, opens_sentence=True)
        # "Ana lives in Berlin and I live there too": Ana's statement is hers, but its
        # place is the one the user's "there" names ("a town near Berlin" is not Berlin).
        # "Everyone at Acme knows I work there": "there" may point back in its own part.
        # Living there is no move away from it: "I love Berlin. I live here." left none.
        ahead = re.split(r"\b(?:there|here)\b", part, maxsplit=1, flags=re.IGNORECASE)[0]
        # "I met Tom, who works at Acme, and I work there too": Tom's clause names the place.
        earlier = (before_this, ahead, *others_clauses(f"{before_this} {ahead}", own=wanted))
        if not left and said & (wanted - names) and any(
                points_back_to(part, one, names) and not named_apart(one, fact, names)
                for one in earlier):
            said |= names
        if spurned and _verb_on_it(part, said & light):
            said |= spurned
        spurned = set()
        if only_named and placed_as_in(part, fact, names):
            said |= light
        # "I'm allergic to peanuts. Shellfish too.": the list goes on.
        if withheld and goes_on_with(part, wanted - head):
            said |= head
        if said_by(said):
            return True
        # "I love shellfish. I'm allergic to peanuts.": the allergy is to peanuts. Only a
        # list said to be so goes on: "I'm not allergic to peanuts. Shellfish too." denies.
        withheld = not placed and bool(head & said) and object_of_its_own(part, head, wanted)
        linked |= said - head if withheld else said
        together |= linked - names
    return said_by(together | lent | _names_lent(linked, names, wanted))


def _users(statement: str) -> bool:
    """Whether ``statement`` is the user's or of someone of theirs ("I met Tom and have a
    cat"), not of someone named nor of "he" or "she"."""
    own = owner_of(statement)
    return own is not None and own.user


#: Relations of the user's that are pets: "My sister's dog is named Rex" is the dog's.
_PET_RELATIONS = frozenset({"dog", "cat", "pet"})


def _users_pet(whose: Owner | None) -> str | None:
    """The kind of pet a fact ``whose`` is of is, when it is the user's own ("dog" of
    "User's dog is Rex"); None of anyone or anything else."""
    if whose is None or not whose.user or len(whose.relations) != 1:
        return None
    return whose.relations[0] if whose.relations[0] in _PET_RELATIONS else None


def _of_them_alone(statement: str, whose: Owner | None) -> bool:
    """Whether ``statement`` is of the very one of the user's a fact ``whose`` is of ("My
    sister saw a dog"), not of one of theirs ("My sister's dog is named Rex")."""
    own = owner_of(statement)
    return (whose is not None and whose.user and bool(whose.relations) and own is not None
            and own.user and own.relations == whose.relations
            and not _PET_RELATIONS & set(own.relations))


def _lived_before(part: str, before: str, left: set[str]) -> set[str]:
    """The places of ``left`` (a fact's) that ``part``, a move naming none it left, left
    as lived in by the statement ``before`` it: "I lived in Berlin. Then I moved to
    Munich."; not "I lived in New Berlin. ...", a name inside a longer one."""
    return (left & lived_before_moving(f"{before} {part}") - lived_before_moving(part)
            - inside_longer_names(before, left))


def _verb_on_it(part: str, verbs: set[str]) -> bool:
    """Whether ``part`` says one of ``verbs`` (a fact's light verbs it says are so) of
    "it" or "them": "I use it daily", not "I use emacs instead"."""
    words = re.findall(r"[\w'’-]+", part.casefold())
    return any(concepts(word) & verbs and following in {"it", "them"}
               for word, following in pairwise(words))


def _met_alone(statement: str, names: set[str]) -> bool:
    """Whether ``statement`` is the user's own and names the fact's ``names`` and no one
    else, so that a "we" after it may be the user and them: "I met Anna at a party", not
    "I met Anna with my wife" nor "Anna and Tom met"."""
    own = owner_of(statement)
    return (own is not None and own.user and not own.relations and bool(names)
            and names_in(statement, opens_sentence=True) == names
            and not any(relation_of(word) for word in re.findall(r"[\w'’-]+", statement)))


def _names_lent(linked: set[str], names: set[str], wanted: set[str]) -> set[str]:
    """The ``names`` of a fact said in statements ``linked`` to one another, when those
    also say more of what it ``wanted``: a name said alone there lends itself to none."""
    return linked & names if linked & (wanted - names) else set()


def holds_part_of(statement: str, fact: str) -> bool:
    """Whether ``statement``, of a message that ``says`` ``fact``, holds part of what sets
    the fact apart: one of its names or numbers, or a concept of it but light ones ("His
    name is Rex." of "I have a dog. His name is Rex.", for "User has a dog named Rex")."""
    _, names, distinctive, whose, kin = reading(fact)
    said = of_whom(statement, whose, kin)
    return said is not None and bool((names | distinctive) & said)
