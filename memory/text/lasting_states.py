"""States of a person that last until one of their own kind follows: a diet, a
pregnancy, whether one is married, whether one works.

A person is in many states at once, and "now" says that one of them changed, not which:
"My wife is tired now" says how she feels today, and she is no less pregnant for it. So a
state of one of these kinds ends only another of the same kind ("User is vegetarian now"
ends "User is vegan", "User's brother is married now" ends "... is engaged"), and one of
another kind, lasting or passing, leaves it. Two passing states ("tired", "sick") still end
each other with a change cue, as how one is now: keeping both would hold a contradiction
("sick" and "better"). memory/text/updates.py's ``replaces`` asks these questions. Pure
functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.given_names import is_first_name
from tiermem.memory.text.slots import ATTRIBUTE

__all__ = ["DIETS", "diet_changed", "job_changed", "lasting_beside_state", "marriage_changed",
           "partner_left_out"]

#: Diets that say what one eats of animals, of which one holds at a time: "User is
#: vegetarian now" ends "User is vegan". Others ("keto", "gluten-free") go with any of them.
DIETS = frozenset({"vegan", "vegetarian", "pescatarian", "pescetarian", "flexitarian"})
#: Each kind of lasting state, whose states end one another and nothing else; diets first.
_LASTING = (
    DIETS,
    frozenset({"pregnant", "expecting"}),
    frozenset({"single", "engaged", "married", "divorced", "separated", "widowed"}),
    frozenset({"employed", "unemployed", "self-employed", "retired"}),
)


def _values_of(new: str, old: str) -> tuple[str, str] | None:
    """What ``new`` and ``old`` say one subject is ("vegan", "a nurse"), when both say it
    of the same subject; None otherwise."""
    said = [ATTRIBUTE.match(fact.strip().rstrip(".!")) for fact in (new, old)]
    if said[0] is None or said[1] is None:
        return None
    if said[0]["subject"].casefold() != said[1]["subject"].casefold():
        return None
    new_value, old_value = (
        re.sub(r"^an?\s+", "", match["value"].strip(), flags=re.IGNORECASE).casefold()
        for match in (said[0], said[1]))
    return new_value, old_value


def diet_changed(new: str, old: str) -> bool:
    """Whether ``new`` gives one subject another diet than ``old`` does (``DIETS``)."""
    values = _values_of(new, old)
    return values is not None and values[0] != values[1] and set(values) <= DIETS


def _kind_of(value: str) -> int | None:
    return next((at for at, kind in enumerate(_LASTING) if value in kind), None)


def lasting_beside_state(new: str, old: str, of_a_person: bool) -> bool:
    """Whether one of ``new`` and ``old`` gives one subject a lasting state and the other a
    state of another kind: "User's wife is tired now" says nothing of her pregnancy, nor
    "User's wife is pregnant now" of what she eats. Said of a thing (``of_a_person``
    False), only a diet lasts: "The server is retired now" ends "... is overloaded"."""
    values = _values_of(new, old)
    if values is None:
        return False
    kinds = [_kind_of(value) for value in values]
    if not of_a_person:
        kinds = [kind if kind == 0 else None for kind in kinds]
    return kinds[0] != kinds[1]


#: Being without work, which a job held ends and which ends a job held.
_WITHOUT_WORK = frozenset({"unemployed", "retired"})
#: A job said with a verb ("User's brother works at Acme", "User works as a nurse").
_WORKS = re.compile(r"^(?P<subject>.+?)\s+works?\s+(?:at|for|as|in)\b", re.IGNORECASE)


def job_changed(new: str, old: str) -> bool:
    """Whether one of ``new`` and ``old`` says a subject is without work and the other
    that it works somewhere: "User's brother is unemployed" (or "... unemployed now") ends
    "... works at Acme", and "... works at Acme" ends "... is unemployed"; kept, core
    would hold both, however plainly the new one was said."""
    for without, job in ((new, old), (old, new)):
        state, works = ATTRIBUTE.match(without.strip().rstrip(".!")), _WORKS.match(job.strip())
        if (state is not None and works is not None
                and state["value"].strip().casefold() in _WITHOUT_WORK
                and state["subject"].casefold() == works["subject"].casefold()):
            return True
    return False


#: Whether one is with someone, of which one holds at a time: "User is divorced" ends "User
#: is married to Ana", said with a change cue or not, as core would otherwise hold both.
_MARITAL = re.compile(
    r"^(?P<state>single|engaged|married|divorced|separated|widowed)\b(?P<to>\s+(?:to|from)\s+.+)?$",
    re.IGNORECASE)
#: The user's spouse ("User's wife"), whose divorce is the user's.
_SPOUSE = re.compile(r"^user['’]s\s+(?:wife|husband|spouse|fianc[eé]e?)$", re.IGNORECASE)
#: States that say the user is with no spouse, which end one named ("User's wife is Ana");
#: not "separated", whose spouse is still the one named.
_WITH_NO_SPOUSE = frozenset({"single", "divorced", "widowed"})
#: The user's former spouse ("User's ex-wife"), whose name ends the marriage to them.
_EX_SPOUSE = re.compile(r"^user['’]s\s+ex(?:-?\s*(?:wife|husband|spouse))?$", re.IGNORECASE)
#: A couple the user is one of ("we", "User's wife and User"), whose state is the user's.
_WITH_THE_USER = re.compile(r"^(?:we|user\s+and\s+.+|.+\s+and\s+user)$", re.IGNORECASE)
_WE_ARE = re.compile(r"^we['’]re\b", re.IGNORECASE)


def _marital_state(fact: str, changed: bool = False) -> tuple[str, str] | None:
    """Whose marital state ``fact`` gives and the state ("married to ana"), the user's
    for one said of their spouse as a change ("User's wife is divorced now") or of a
    couple the user is in ("We're divorced"); None for any other fact."""
    said = ATTRIBUTE.match(_WE_ARE.sub("We are", fact.strip().rstrip(".!")))
    state = _MARITAL.match(said["value"].strip()) if said is not None else None
    if said is None or state is None:
        return None
    subject = said["subject"].strip().casefold()
    if _WITH_THE_USER.match(subject):
        subject = "user"  # "Ana and User are divorced" is the user's divorce
    # said plainly, "My wife is divorced" tells of a marriage before the user's
    if (changed and _SPOUSE.match(subject)
            and state["state"].casefold() in ("divorced", "separated")):
        subject = "user"
    return subject, " ".join(state[0].casefold().split())


def _names_a_spouse(fact: str) -> bool:
    said = ATTRIBUTE.match(fact.strip().rstrip(".!"))
    return (said is not None and _SPOUSE.match(said["subject"].strip()) is not None
            and said["value"].strip()[:1].isupper())


def _another_person(partner: str, spouse: str) -> bool:
    """Whether ``partner`` ("eva") names someone other than ``spouse`` ("ana silva"): a
    name told shorter ("ana") is the same one."""
    shorter = min(len(partner.split()), len(spouse.split()))
    return shorter > 0 and partner.split()[:shorter] != spouse.split()[:shorter]


def _spouse_named(fact: str) -> str:
    """The name ``fact`` gives the user's spouse ("ana" of "User's wife is Ana"), folded."""
    said = ATTRIBUTE.match(fact.strip().rstrip(".!"))
    return " ".join(said["value"].casefold().split()) if said is not None else ""


def _spouse_now_an_ex(new: str, old: str) -> bool:
    """Whether ``new`` names as the user's ex the spouse ``old`` names ("User's ex-wife is
    Ana" after "User is married to Ana" or "User's wife is Ana")."""
    ex, wed = ATTRIBUTE.match(new.strip().rstrip(".!")), ATTRIBUTE.match(old.strip().rstrip(".!"))
    if ex is None or wed is None:
        return False
    # "Ana is User's ex" names her as plainly as "User's ex-wife is Ana"
    role, name = ex["subject"].strip(), ex["value"].strip()
    if _EX_SPOUSE.match(name) and role[:1].isupper():
        role, name = name, role
    if not _EX_SPOUSE.match(role):
        return False
    spouse = wed["value"].strip() if _names_a_spouse(old) else None
    if (state := _marital_state(old)) is not None and state[0] == "user":
        spouse = state[1].removeprefix("married to ") if state[1] != "married" else None
    if not spouse:
        return False
    # "Ana Silva" is the "Ana" core married the user to, as "My wife is Ana Silva" is
    return not _another_person(" ".join(spouse.casefold().split()),
                               " ".join(name.casefold().split()))


def _partner_named(fact: str) -> str | None:
    """The person ``fact`` says one is married or engaged to, folded ("eva" of "User is
    married to Eva"); None for no one named: "engaged to deliver it by Friday" or "married
    to User's job" says nothing of the user's wife or husband."""
    said = ATTRIBUTE.match(_WE_ARE.sub("We are", fact.strip().rstrip(".!")))
    state = _MARITAL.match(said["value"].strip()) if said is not None else None
    partner = (state["to"] or "").split(maxsplit=1)[1:] if state is not None else []
    if not partner or partner[0].casefold().startswith("user"):
        return None
    # A user who types in lowercase ("i'm married to eva") still names a person when the
    # word is a given name standing alone; "deliver" of "engaged to deliver it" is none, and
    # nor is "mark" of "engaged to mark the release", though it is a name too.
    words = partner[0].split()
    if not (partner[0][:1].isupper() or (len(words) == 1 and is_first_name(words[0]))):
        return None
    return " ".join(partner[0].casefold().split())


def _state_ends_spouse(state: str, partner: str | None, spouse: str) -> bool:
    """Whether the user's marital ``state`` ("married to eva", "divorced"), with the
    ``partner`` it names, leaves no room for ``spouse`` ("ana") as wife or husband."""
    return (state.split()[0] in _WITH_NO_SPOUSE
            or (partner is not None and _another_person(partner, spouse)))


def marriage_changed(new: str, old: str, changed: bool = False) -> bool:
    """Whether ``new`` gives a subject another marital state than ``old`` does ("User is
    divorced" after "User is married to Ana"; "User's wife is divorced", said as a change
    (``changed``), is the user's divorce too), or the user's state leaves no room for the
    spouse the other names ("User is married to Eva" beside "User's wife is Ana")."""
    states = _marital_state(new, changed), _marital_state(old)
    if states[0] is None:
        if _names_a_spouse(new) and states[1] is not None and states[1][0] == "user":
            return _state_ends_spouse(states[1][1], _partner_named(old), _spouse_named(new))
        return _spouse_now_an_ex(new, old)
    if states[1] is None:
        return (states[0][0] == "user" and _names_a_spouse(old)
                and _state_ends_spouse(states[0][1], _partner_named(new), _spouse_named(old)))
    if states[0][0] != states[1][0]:
        return False
    new_state, old_state = states[0][1].split(), states[1][1].split()
    # "married" after "married to Ana" is the same marriage told with less: Ana stays
    return new_state != old_state and not (len(new_state) == 1 and new_state[0] == old_state[0])


def partner_left_out(new: str, old: str) -> bool:
    """Whether ``new`` gives the marital state ``old`` gives one subject, less the person
    ``old`` names ("User is married" after "User is married to Ana"): the same marriage
    told with less, so ``old`` is what it says again."""
    states = _marital_state(new), _marital_state(old)
    if states[0] is None or states[1] is None or states[0][0] != states[1][0]:
        return False
    return states[0][1] == states[1][1].split()[0] and _partner_named(old) is not None
