"""Who or what a fact is about, and whether two facts may be about one thing.

Rule-based and pure, over the facts memory/text/extract.py writes. ``subject_of`` reads a
fact's subject up to its first verb ("Customer Acme" of "Customer Acme is on the Pro
plan"); ``same_subject`` says whether two facts may speak of one thing, which is what lets
a change said of one (memory/text/updates.py) end the other; ``subject_concepts`` is what
two facts share only by naming that subject, so that it alone never makes a new value.
"""

from __future__ import annotations

import re

from tiermem.memory.text.extract import normalize_fact
from tiermem.memory.text.slots import CHANGE_WORDS
from tiermem.memory.text.wording import concepts

__all__ = ["SUBJECT_VERB", "same_subject", "subject_concepts", "subject_of"]

_I = re.IGNORECASE
_APOS = "['’]"

#: Words after which a noun comes: one ending in "s" there is a plural, not a verb.
_NOUN_DETERMINERS = ("the", "a", "an", "my", "our", "your", "their", "his", "her", "its",
                     "these", "those", "some", "all", "both", "many", "most",
                     "several", "every", "no")
_AFTER_DETERMINER = "".join(rf"(?<!\b{word}\s)" for word in _NOUN_DETERMINERS)
#: Where a fact's subject ends: its first verb of being, having or doing.
SUBJECT_VERB = re.compile(
    rf"^(?P<subject>.{{1,60}}?)\s+(?:is|are|was|were|has|have|had|can|cannot|can{_APOS}t"
    rf"|will|won{_APOS}t|does|doesn{_APOS}t|did|didn{_APOS}t|isn{_APOS}t|aren{_APOS}t"
    # the past the extractor writes ("User moved to Porto", person.py's head table)
    r"|moved|relocated"
    # a verb in -s ("prefers"), not a plural after a possessive ("User's kids are ...") or
    # a determiner ("The payments team"), where a noun, not a verb, comes
    rf"|(?<!'s )(?<!’s ){_AFTER_DETERMINER}(?-i:[a-z]+[^s\W]s))\b", _I)


def subject_of(fact: str) -> str | None:
    """Who or what ``fact`` is about ("Customer Acme", "User's wife"), or None if unclear."""
    match = SUBJECT_VERB.match(fact.strip())
    if match is None:
        return None
    words = [w for w in re.findall(r"[\w'’-]+", match["subject"].casefold())
             if w not in CHANGE_WORDS]
    return " ".join(words) or None



def subject_concepts(new: str, old: str) -> set[str]:
    """The concepts two facts share by naming one subject ("customer", "acme"); none when
    either subject is unclear."""
    subjects = [subject_of(fact) for fact in (new, old)]
    if None in subjects:
        return set()
    return concepts(subjects[0] or "") & concepts(subjects[1] or "")


def same_subject(new: str, old: str) -> bool:
    """Whether two facts may be about one thing: the same subject (or one unclear), the same
    predicate given to another subject, or one naming the other's subject itself (not as
    the owner of something: "User's wife" does not name "User")."""
    new_subject, old_subject = subject_of(new), subject_of(old)
    if new_subject is None or old_subject is None or new_subject == old_subject:
        return True
    if new_subject == _named_before_clause(old) or old_subject == _named_before_clause(new):
        return True  # "Priya likes coffee" and "Priya, who is on call, likes tea"
    if _predicate(new) == _predicate(old):
        # The user and someone of theirs may both like jazz: "I like jazz now" after
        # "My wife likes jazz" takes nothing from her.
        return "user" not in (new_subject, old_subject) or not any(
            subject.startswith(("user's ", "user’s ")) for subject in (new_subject, old_subject))
    # Named in what the other says, not inside its subject: "The incident commander" is
    # another subject than "The incident", though it starts with its words.
    return any(re.search(rf"(?<![\w'’-]){re.escape(subject)}(?![\w-]|['’]s\b)",
                         (_said_of_subject(fact) or fact).casefold()) is not None
               for subject, fact in ((old_subject, new), (new_subject, old)))


def _named_before_clause(fact: str) -> str | None:
    """``subject_of(fact)`` up to a comma that opens a clause or an apposition in it
    ("priya" of "Priya, who is on call, likes tea"; "marco" of "Marco, our SRE lead, works
    from Milan"), as the subject read runs on to the verb and takes in the clause's words;
    None when the subject holds no comma."""
    match = SUBJECT_VERB.match(fact.strip())
    if match is None or "," not in match["subject"]:
        return None
    words = [w for w in re.findall(r"[\w'’-]+", match["subject"].split(",")[0].casefold())
             if w not in CHANGE_WORDS]
    return " ".join(words) or None


def _said_of_subject(fact: str) -> str | None:
    """``fact`` after its subject ("is now the on-call engineer"), or None if the subject
    is unclear."""
    match = SUBJECT_VERB.match(fact.strip())
    return fact.strip()[match.end("subject"):] if match else None


def _predicate(fact: str) -> str:
    """What ``fact`` says of its subject, normalised ("leads the payments team")."""
    said = _said_of_subject(fact)
    return normalize_fact(said) if said is not None else ""
