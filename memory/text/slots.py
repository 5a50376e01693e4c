"""Which single-valued attribute a fact sets: its slot, "owner/attribute".

``slot_of(fact)`` names it when that is clear. "User's city is Faro", "User lives in Faro"
and "User moved to Faro" all set ``user/residence`` (city, address, home and town are one
attribute), as do "User's wife and User moved to Faro" and "... live in Faro"; "works
at/for" (or "Tom and User work at") sets ``employer``, and ``member_slots`` each one's
of a joint subject
and "works as" or "job is" sets ``job``; "The production region is eu-west-1" sets
``/production region``. A fact about a bare person ("User is vegan") or a named entity
("Acme is on the Enterprise plan") sets none, because several such facts are true at once;
nor does one whose owner is a pronoun ("His name is Bob", "She works at Acme"), which says
whose only in the sentences before it: "Her name is Eva" may be another person's.
``role_of(slot)`` reads the words for whom the user is with as one attribute
("user/boyfriend" and "user/wife" are both a partner). What a new value of a slot replaces
is memory/text/updates.py's. Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.relations import of_a_couple

__all__ = ["ATTRIBUTE", "CHANGE_WORDS", "DETERMINERS", "VERB_SLOT", "joint_members",
           "member_slots", "role_of", "slot_of"]

_I = re.IGNORECASE
_APOS = "['’]"

#: A verb that sets where someone lives, whom they work for, or as what.
VERB_SLOT = re.compile(
    r"^(?P<owner>[\w' .-]{1,60}?)\s+(?:"
    r"(?P<residence>(?:lives|resides|is\s+living|is\s+based)\s+in"
    r"|(?:has\s+)?(?:moved|relocated)\s+(?:back\s+)?(?:from\s+[^.;]{1,60}?\s+)?to)"
    r"|(?P<employer>(?:works|is\s+working)\s+(?:at|for))"
    r"|(?P<job>works\s+as))\b",
    _I,
)
#: The same, said of the user beside someone ("User's wife and User work at Globex").
_JOINT_VERB_SLOT = re.compile(
    r"^(?P<owner>[\w' .-]{1,60}?\s+and\s+[\w' .-]{1,60}?)\s+(?:"
    r"(?P<residence>(?:live|reside|are\s+living|are\s+based)\s+in)"
    r"|(?P<employer>(?:work|are\s+working)\s+(?:at|for))"
    r"|(?P<job>work\s+as))\b",
    _I,
)
#: "X is V" (or "X are V"): X's attribute, and its value.
ATTRIBUTE = re.compile(r"^(?P<subject>[\w' .-]{2,60}?)\s+(?:is|are)\s+(?P<value>.+)$", _I)
#: Words that say a value is new, which name no attribute ("User's new phone number").
CHANGE_WORDS = frozenset({"new", "now", "current", "updated", "latest", "actual", "correct"})
#: Words that open the name of a thing rather than of its owner ("The region", "Our plan").
DETERMINERS = frozenset({"the", "our", "their", "his", "her", "its", "your", "this"})
#: Owners only the sentences before a fact say ("He works at Acme", "Her name is Eva"): two
#: such facts may be of two people, so neither sets a slot the other would change.
_PRONOUN_OWNERS = frozenset({"he", "she", "it", "they", "his", "her", "its", "their"})
_BARE_SUBJECTS = frozenset({"user", "i", "we", "he", "she", "they", "it", "this", "that",
                            "there", "here", "everything", "something"})
#: Not "hometown", where one comes from: "I live in York" replaced "User's hometown is Leeds".
#: It is one attribute however spelled: "My hometown is Bradford" left "User's home town
#: is Leeds" held beside it.
_SAME_ATTRIBUTE = {
    "city": "residence", "address": "residence", "home": "residence",
    "home address": "residence", "town": "residence", "residence": "residence",
    "home town": "hometown", "home-town": "hometown",
    "employer": "employer", "company": "employer", "workplace": "employer", "job": "job",
    "job title": "job", "occupation": "job", "role": "job",
}


def slot_of(fact: str) -> str | None:
    """The single-valued attribute ``fact`` sets ("owner/attribute"), or None if unclear."""
    text = fact.strip()
    verb = VERB_SLOT.match(text) or _JOINT_VERB_SLOT.match(text)
    if verb:
        owner = verb["owner"].casefold()
        kind = next(k for k in ("residence", "employer", "job") if verb[k])
        if owner.startswith(("the ", "a ", "an ")) or owner in _PRONOUN_OWNERS:
            return None
        if "user" in re.split(r"\s+and\s+", owner):
            owner = "user"  # "User's wife and User moved to Berlin": so did the user
        return f"{owner}/{kind}"
    match = ATTRIBUTE.match(text)
    if match is None:
        return None
    subject = match["subject"]
    words = [w for w in re.findall(r"[\w'’-]+", subject.casefold()) if w not in CHANGE_WORDS]
    if not words or " ".join(words) in _BARE_SUBJECTS:
        return None
    owner = ""
    possessive = re.match(rf"^(.+?){_APOS}s$", words[0])
    if possessive:
        owner, words = possessive[1], words[1:]
    elif words[0] in _PRONOUN_OWNERS:
        return None
    elif words[0] in DETERMINERS:
        words = words[1:]
    elif subject[0].isupper():
        return None  # a named thing ("Acme is ..."): many facts about it hold at once
    if not words:
        return None
    attribute = " ".join(words)
    return f"{owner}/{_SAME_ATTRIBUTE.get(attribute, attribute)}"


def member_slots(fact: str) -> list[str]:
    """The slot each of a joint subject sets ("tom/employer" and "user/employer" of "Tom
    and User work at Globex"), as each works there now; none for one subject."""
    # "moved to" is one verb for one subject or two: VERB_SLOT reads it of both
    joint = _JOINT_VERB_SLOT.match(fact.strip()) or VERB_SLOT.match(fact.strip())
    if joint is None:
        return []
    kind = next(k for k in ("residence", "employer", "job") if joint[k])
    members = [member.casefold() for member in joint_members(joint["owner"])]
    return [f"{member}/{kind}" for member in members if len(members) > 1
            and not member.startswith(("the ", "a ", "an ")) and member not in _PRONOUN_OWNERS]


#: The one whose someone is, opening a member of a joint subject: "User's" of "User's wife".
_WHOSE = re.compile(rf"^(?P<whose>[\w-]+{_APOS}s)\s")
#: A member said with no word of whose (a bare "kids"), which the one before it gives.
_BARE_NOUN = re.compile(r"^(?-i:[a-z])[\w-]*(?:\s+[\w-]+)?$")


def joint_members(owner: str) -> list[str]:
    """Each of the joint subject ``owner``, as said: "User's wife and kids" is
    ["User's wife", "User's kids"], as "my wife and kids" are both the user's."""
    members = re.split(r"\s+and\s+", owner.strip(), flags=_I)
    whose = _WHOSE.match(members[0])
    if whose is None:
        return members
    return [f"{whose['whose']} {member}" if at and _BARE_NOUN.match(member)
            and member.casefold().split()[0] not in _PRONOUN_OWNERS | DETERMINERS
            | {"a", "an", "user"} else member for at, member in enumerate(members)]


def role_of(slot: str) -> str:
    """The attribute ``slot`` sets, the words for whom the user is with one: "partner" for
    "user/boyfriend" and "user/wife", "employer" for "user's wife/employer"."""
    owner, _, attribute = slot.rpartition("/")
    return "partner" if owner == "user" and of_a_couple(attribute) else attribute
