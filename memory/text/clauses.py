"""How a stored compound fact splits into the statements it joins.

``clauses_of(fact)`` splits a compound fact ("The production region is eu-west-1
and the staging region is us-east-2") into the statements it joins, so each can
change on its own; a part that opens with a pronoun ("... and she is allergic to
cats") takes the subject of the one before it (of a name, whoever bears it: "My boss's
name is Dana and she ..." is about "User's boss"; after "His name is Tom" the part keeps
its own pronoun), as does one that opens with a verb of the
statement list ("Customer 9034 uses SSO and is on the Team plan", "We use Datadog and are
on the Team plan"; not "... and is proud of it", which leans on the part before), and one
in the speaker's own words, as earlier versions left "I don't" ("User is vegetarian, and I
don't drink coffee"), is told of the speaker the fact opens with ("User doesn't drink
coffee"). A part states something of its own with a verb of being or having, or one of a
few as said after "we" or "they" ("We use Datadog", "we're on the Team plan"), or with one
of a closed list after a subject a determiner opens, then where or when ("... and the
alerts go to Opsgenie"; not "... and the smell of rain");
``statements_of(fact, durability)`` gives each its durability; ``without_statements``
cuts chosen statements out of a sentence in the speaker's words. A move and a part that
takes it back stay one statement ("User moved to Berlin last year but User has moved back").
Whose a part with no subject of its own is, memory/text/own_subjects.py reads. Pure
functions over strings, like memory/text/updates.py, whose ``slot_of`` decides what
states a value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from tiermem.memory.text.durability import classify_durability
from tiermem.memory.text.extract import extract_facts
from tiermem.memory.text.fragments import qualifies
from tiermem.memory.text.given_names import is_first_name
from tiermem.memory.text.moves import undoes_a_move
from tiermem.memory.text.own_subjects import (
    POINTS_BACK,
    SHARED_STATEMENT,
    SHARED_SUBJECT,
    STATEMENT,
    THIS_TIME,
    own_subject,
)
from tiermem.memory.text.person import third_person
from tiermem.memory.text.unsaid_denials import (
    denial_after_comma_in_full,
    denial_joined_in_full,
    denies_only,
    told_in_full,
    without_denial_after_comma,
)
from tiermem.memory.text.updates import slot_of
from tiermem.memory.types import Durability

__all__ = ["clauses_of", "statements_of", "without_statements"]

_I = re.IGNORECASE
_APOS = "['’]"

#: Where a fact may join two statements: "X is A and Y is B", "X is A; Y is B", and a comma
#: before a capital, "Ana is User's sister, Tom is User's brother" (not "Berlin, Germany":
#: a part after it that states nothing stays with the one before), or before "he" or "she"
#: ("Ana is User's sister, she is a nurse").
_CLAUSE_JOIN = re.compile(
    r"(,?\s+(?:and|but)\s+|;\s+|,\s+(?=(?-i:[A-Z]|(?:he|she|his|her)\s)))", re.IGNORECASE)

#: A part whose subject a determiner opens, followed by a verb of a closed list, in any
#: tense, and where or when it goes ("the alerts go to Opsgenie", "the build failed at
#: noon"): such a verb after a noun is no noun itself, as a list item such as "the smell of
#: rain" has none. The verb agrees with the noun before it: "go" only after a plural ("the
#: alerts"), so "the bus stop at the corner" names a place.
_VERB_STEMS = ("go", "come", "run", "start", "stop", "end", "fail", "send", "point", "route",
               "belong", "expire", "renew", "ship", "deploy", "land", "live", "stay", "open",
               "close", "arrive", "happen")
_PASTS = ("went", "came", "ran", "started", "stopped", "ended", "failed", "sent", "pointed",
          "routed", "belonged", "expired", "renewed", "shipped", "deployed", "landed", "lived",
          "stayed", "opened", "closed", "arrived", "happened", "left")
_PLURAL_NOUN = r"[\w-]*[^\Wsiu]s"
_NOUN = (r"(?!(?:of|in|on|at|to|for|with|from|by|and|or|but|is|are|was|were|has|have|had)\b)"
         r"[\w-]+")
_DETERMINED = re.compile(
    r"^(?:the|a|an|our|your|their|his|her|its|this|that|these|those|all|some|both)"
    rf"(?:\s+{_NOUN})?(?:\s+(?:{_PLURAL_NOUN}\s+(?:{'|'.join(_VERB_STEMS)})"
    rf"|{_NOUN}\s+(?:{'|'.join(_VERB_STEMS)})e?s|{_NOUN}\s+(?:{'|'.join(_PASTS)})))"
    r"\s+(?:to|into|at|in|on|from|through|via|for|every|after|before|until|by|out|off|up"
    r"|down|back|over|with)\b", _I)


#: A denial, which a comma joins to what is said instead ("User is not vegan, User is
#: vegetarian"): one statement, as a correction is read whole.
_DENIED = re.compile(r"\b(?:not|never|no\s+longer)\b|n['’]t\b", _I)
#: Who opens a statement a comma alone joins: the speaker, or someone by first name ("...,
#: Tom is User's brother"). Another capital may open what leans on the part before ("User
#: likes Queen, Blur is okay too", "..., Muse is second"), as may one's without the thing
#: ("User's school was Eton, Tom's was Harrow").
_BEING = frozenset({"is", "are", "was", "were", "has", "had"})
_COMMA_SUBJECT = re.compile(rf"^(?P<word>[^\W\d_][\w-]*)(?P<owns>{_APOS}s)?\s+(?P<next>\S+)")
#: A statement a comma alone joins that says whom of the speaker's a name is ("..., Luna is
#: User's cat"), whether or not the name is a common first name: kept with the part before,
#: "Rex is User's dog, Luna is User's cat" was one fact where the "and" form is two.
_SPEAKERS_ONE = re.compile(
    rf"^[A-Z][\w'’-]*\s+(?:is|was)\s+User{_APOS}s\s+[a-z][\w-]*\W*$")
#: A part with a subject of its own may still lean on the part before it for what it says
#: ("... and User likes it too", "... and User lives there too", "... and User loves mine"):
#: cut off, "User lives there too" says nowhere.
_LEANS_BACK = re.compile(r"\s(?:there|mine|ours|theirs|yours)\b", _I)
#: A later part in the speaker's own words: versions that did not yet tell "I don't" of the
#: speaker kept it so in a compound fact ("User is vegetarian, and I don't drink coffee").
_SPEAKERS_OWN = re.compile(rf"^i\s+(?:don{_APOS}?t|do\s+not)\b", _I)
#: The speaker such a fact's head was told of: its first word ("User is vegetarian", "User's
#: sister lives in Lyon"), a capitalised one that is no pronoun or determiner.
_HEAD_WORD = re.compile(rf"^(?P<word>[^\W\d_][\w-]*)(?:{_APOS}s)?\s")
_NO_SPEAKER = frozenset({"a", "an", "the", "this", "that", "these", "those", "there", "here",
                         "it", "he", "she", "they", "we", "you", "i", "my", "our", "your",
                         "his", "her", "their", "its"})


#: A part that ends at its verb ("User lives" of "User lives and works in Lisbon"), which
#: shares what the verb joined after it says: cut off there, it would state nothing.
_ENDS_AT_VERB = re.compile(
    r"^[\w'’ .-]{1,40}?\s+(?:likes|loves|hates|prefers|lives|works|needs|wants|uses|owns)$", _I)
#: Where one lives cut off before another verb of the place ("User lives" of "User lives
#: and studies in Lisbon"): joined to it, a move would leave the old home standing.
_LIVES_BEFORE = re.compile(r"^(?P<subject>[\w'’ .-]{1,40}?)\s+lives$", _I)
_VERB_OF_PLACE = re.compile(r"^[a-z]+s\s+(?=(?:in|at|near)\s+[A-Z])")


def _states(part: str) -> bool:
    return (slot_of(part) is not None or STATEMENT.match(part) is not None
            or _DETERMINED.match(part) is not None)




#: A sentence quoted as the speaker's, since the first person is not its head ("User: The
#: alerts go to Opsgenie, and I don't use PagerDuty").
_QUOTED = re.compile(r"^(?P<speaker>[^\W\d_][\w-]*):\s+(?P<said>\S.*)$", re.DOTALL)
#: Words that head a note rather than name who said it ("Note: ..., and I don't use
#: PagerDuty", as a model or a user writes one); a speaker's name ("Ada: ...") is none.
_NOTE_LABELS = frozenset({
    "note", "notes", "nb", "ps", "fyi", "todo", "reminder", "remember", "update", "summary",
    "context", "fact", "facts", "important", "warning", "caution", "tip", "edit", "info",
    "memo", "status", "background", "preference", "preferences", "profile", "correction",
    "observation", "detail", "details", "example", "question", "answer", "re", "subject",
    "action", "decision", "task", "goal", "memory"})
#: Words that head a speaker's own words ("User: Incident: ...") and name no one. Any
#: other word before a colon there may be a name the speaker quotes ("User: Ada: I moved
#: to Paris"), whose first person is not the speaker's.
_HEADINGS = _NOTE_LABELS | frozenset({
    "incident", "outage", "alert", "heads-up", "postmortem", "announcement", "recap",
    "issue", "ticket", "bug", "problem", "change", "release", "deploy", "deployment",
    "agenda", "eta", "impact", "cause", "resolution", "timeline", "follow-up", "news",
    "urgent", "psa", "blocker", "risk", "request", "feedback", "today", "tonight"})


def _quoted_clauses(fact: str) -> list[str] | None:
    """The statements of a quoted sentence, each told of the speaker ("The alerts go to
    Opsgenie", "User doesn't use PagerDuty"); None when it joins none, or when one would
    still be quoted ("User: I think the alerts go to Opsgenie, and ..."): the first person
    the extractor could not tell of the speaker stays in the speaker's quoted words. A
    label that names no one ("Note:") keeps a sentence in the first person whole. A label
    inside a speaker's quoted words ("User: Incident: ...") heads what the speaker said:
    its first person is the speaker's, as it would be without the label; a name there
    ("User: Ada: I moved to Paris, and I don't eat meat") is of someone the speaker
    quotes, so a sentence in the first person stays whole, told of neither."""
    quoted = _QUOTED.match(fact.strip())
    if quoted is None:
        return None
    said = quoted["said"]
    inner = _QUOTED.match(said)
    if inner is not None and quoted["speaker"].casefold() not in _NOTE_LABELS:
        if inner["speaker"].casefold() not in _HEADINGS:
            return _quoted_by_speaker(inner)
        said = inner["said"]
    parts = clauses_of(said)
    told = [third_person(part, quoted["speaker"]) for part in parts]
    if len(parts) < 2 or any(part.startswith(f"{quoted['speaker']}:") for part in told):
        return None
    if quoted["speaker"].casefold() in _NOTE_LABELS and told != parts:
        # A label may be no speaker ("Note: ..., and I don't use PagerDuty", as a model
        # writes one): told of it, the first person would read "Note doesn't use PagerDuty".
        return None
    return [part[:1].upper() + part[1:] for part in told]


def _quoted_by_speaker(inner: re.Match[str]) -> list[str] | None:
    """The statements of words the speaker quotes of someone else ("Ada: the alerts go
    to Opsgenie, and the pager goes to Dana"); None when one is in the first person, as
    neither the speaker nor a heading may be told of it."""
    parts = clauses_of(inner["said"])
    if len(parts) < 2 or any(third_person(part, inner["speaker"]) != part for part in parts):
        return None
    return [part[:1].upper() + part[1:] for part in parts]


def _comma_joins(before: str, own: str, piece: str) -> bool:
    """Whether a comma alone joins ``own`` (``piece`` as read) to the statement ``before``
    it as "and" would: not after a denial, which a comma joins to what holds instead ("User
    is not tired, User is hungry"), and only when ``own`` opens with the speaker or a first
    name, or ``piece`` as said with a name that is one of the speaker's ("Luna is User's
    cat"; not "she is User's cat", whose "she" read as the "Rex" before made it so)."""
    head = _COMMA_SUBJECT.match(own)
    return (_DENIED.search(before) is None and head is not None
            and (head["word"] == "User" or is_first_name(head["word"])
                 or _SPEAKERS_ONE.match(piece) is not None)
            and not (head["owns"] and head["next"].casefold() in _BEING))


def clauses_of(fact: str) -> list[str]:
    """The statements a compound fact joins ("The production region is eu-west-1 and the
    staging region is us-east-2"), each opening with a capital; ``[fact]`` when it joins
    none. A part that states nothing of its own stays with the one before it ("User's
    favourite bands are Queen and the Rolling Stones"). A sentence quoted as the speaker's
    joins statements as it would unquoted, each told of the speaker (``_quoted_clauses``)."""
    if (quoted := _quoted_clauses(fact)) is not None:
        return quoted
    pieces = _CLAUSE_JOIN.split(fact.strip())
    parts = [pieces[0]]
    for joint, piece in zip(pieces[1::2], pieces[2::2], strict=True):
        own = own_subject(piece, parts[-1])
        # "..., but User is back" says how the part before holds, not something apart, as
        # "..., but User has moved back" takes back the move before it: cut off, the move
        # would stand and "User has moved back" say from where no more.
        undone = undoes_a_move(parts[-1] + joint + piece) and not undoes_a_move(parts[-1])
        # Past its subject: an opening pronoun ("they work at Acme") is told of the one before.
        after_subject = " ".join(piece.split()[1:])
        leans = (POINTS_BACK.search(THIS_TIME.sub("", after_subject)) is not None
                 or _LEANS_BACK.search(f" {after_subject}") is not None)
        lives, of_place = _LIVES_BEFORE.match(parts[-1]), _VERB_OF_PLACE.match(piece)
        if lives is not None and of_place is not None and joint.strip() == "and":
            parts[-1] += " " + piece[of_place.end():]  # "User lives" + "in Lisbon"
            parts.append(f"{lives['subject']} {piece}")
            continue
        stated = STATEMENT.match(own) if own is not None else None
        # only a verb with no subject of its own ("lives and works in Lisbon") shares the
        # place: "My wife works and I live in Lisbon" says nothing of where she works
        borrows = (SHARED_STATEMENT.match(piece) or SHARED_SUBJECT.match(piece)) is not None
        if (_ENDS_AT_VERB.match(parts[-1]) and borrows and stated is not None
                and stated["verb"]):
            parts[-1] += (own or "")[stated.end("verb"):]  # "User lives" + " in Lisbon"
        if (_states(parts[-1]) and own is not None and _states(own) and not qualifies(own)
                and not undone and not leans
                and (joint.strip() != "," or _comma_joins(parts[-1], own, piece))):
            parts.append(own)
        else:
            parts[-1] += joint + piece
    if len(parts) < 2:
        return [fact]
    # Cut off from the head that says whose they are, the speaker's own words would read as
    # anyone's (and be stored so): they are told of the speaker, as a fact is told now.
    head = _HEAD_WORD.match(parts[0])
    if head is not None and head["word"][:1].isupper() and (
            head["word"].casefold() not in _NO_SPEAKER):
        parts = [parts[0], *(third_person(part, head["word"]) if _SPEAKERS_OWN.match(part)
                             else part for part in parts[1:])]
    return [part[:1].upper() + part[1:] for part in parts]


def statements_of(fact: str, durability: Durability) -> list[tuple[str, Durability]]:
    """The statements of ``fact`` (``clauses_of``), each with its durability: its own when it
    says how long it holds ("my hotel room is 412 this week"), else ``durability``, the
    sentence's. A later one that only denies the one before of someone ("User works at
    Acme and Tom doesn't", "User works at Acme, Tom doesn't", "Tom smokes but Ana
    doesn't") is told in full when it can be ("Tom doesn't work at Acme", "Ana doesn't
    smoke"; "The API is slow, the DB isn't" is "The API is slow" and "The DB isn't
    slow"), else the sentence is kept as said: alone the denial says nothing."""
    parts = clauses_of(fact)
    if len(parts) < 2 and (joined := denial_joined_in_full(fact)) is not None:
        parts = list(joined)
    elif len(parts) < 2:
        in_full = denial_after_comma_in_full(fact)
        return [(without_denial_after_comma(fact) if in_full else fact, durability),
                *([(in_full, durability)] if in_full else [])]
    # "Tom doesn't" after "User works at Acme" is "Tom doesn't work at Acme", when told
    told = [parts[0], *(told_in_full(before, part) if denies_only(part) else part
                        for before, part in pairwise(parts))]
    parts = [fact] if None in told else [part for part in told if part]
    statements = []
    for part in parts:
        own, cue = classify_durability(part)
        statements.append((part, own if cue is not None else durability))
    return statements


def without_statements(sentence: str, cut: Callable[[str], bool]) -> str | None:
    """``sentence``, in the speaker's words, without the statements it joins that ``cut``
    holds, each read as ``clauses_of`` reads it ("and is on the Team plan" after "Customer
    9034 uses SSO" as "Customer 9034 is on the Team plan"): "My gym is FitLife and my
    dentist is Dr. Lee" without the gym's is "My dentist is Dr. Lee". None when it cuts none
    or all, or when a part left would lean on one cut: it opens with a pronoun or a verb
    that takes the subject before it ("... and she works at Google"), or states nothing on
    its own ("My gym is FitLife and Gold's ...")."""
    pieces = _CLAUSE_JOIN.split(sentence.strip())
    parts, joints = pieces[::2], ["", *pieces[1::2]]
    read = [parts[0], *(own_subject(part, before) or part
                        for part, before in zip(parts[1:], parts, strict=False))]
    gone = [cut(part) for part in read]
    if not any(gone) or all(gone):
        return None
    kept = ""
    for i, part in enumerate(parts):
        if gone[i]:
            continue
        if i and gone[i - 1] and (read[i] != part or not extract_facts(part)):
            return None
        kept += (joints[i] if kept else "") + part
    return kept[:1].upper() + kept[1:]
