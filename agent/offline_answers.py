"""How the offline policy answers a question: which memories it quotes, and how it labels them.

Evidence, in order:

1. core facts (read from the rendered core block, as a model would) sharing
   the most concepts with the question (memory/text/wording.py: stems and a few
   synonyms, so "live" meets "lives" and "address"), up to ``MAX_CORE_QUOTES``.
   Facts of another person than the one the question asks about are left out
   (memory/text/asked_owners.py, ``about_another``): "Where do I live?" quotes "User lives in
   Porto", not "User's brother Tom lives in Berlin", and "Is my brother allergic to
   shellfish?" not "User is allergic to shellfish", here and in archival and recall
   alike; a question in the first person leaves out facts of something of the user's
   it does not name ("User's car ...") when one of the user's own answers; one that
   names someone ("What is Initech's SLA?") leaves out facts about someone else
   it does not name ("Acme's SLA is 4 hours"; "What SLAs do we have?" still
   quotes it), and one that identifies a thing ("What plan is customer 9034 on?")
   leaves out facts that identify only another of its kind ("Customer 8812 is on
   the Pro plan"), as it leaves out such archival passages and messages (a date,
   "since 2019" or "May 2027", identifies nothing);
2. archival hits sharing a concept with the question. A hit marked
   superseded is quoted only for a question about the past, labelled so; an
   older value of a quoted core fact (same attribute, or a close variant) is
   left out;
3. the user's own statements from recall, only when the question is about
   the past or nothing above answered it, but for a sentence stating only facts quoted
   above (it would say them twice) and one that answers only with facts the user asked
   to forget (listed with the message under ``FORGOTTEN_KEY``, a model's wording of one
   known by what it names, as the list itself finds it: ``says``; beside other answers,
   those statements are cut out of the quote when what is left stands alone). Questions,
   requests to forget ("Forget that I live in Porto"; a statement beside one in its
   sentence still is), the assistant's replies (including this policy's earlier answers),
   statements of facts now superseded and long pastes (filed in archival) are never evidence;
4. when nothing above answered, the user's withdrawals from recall that deny
   most of what the question asks about ("Am I allergic to peanuts?" after
   "I'm no longer allergic to peanuts" quotes that), rather than only saying
   that what was known is no longer current; and, for a question not about the
   past, those that also deny all the question asks that the evidence above
   leaves unsaid ("Am I allergic to shellfish?" answered by "User is allergic
   to peanuts", what "I'm not allergic to shellfish anymore" left). A withdrawal is of
   the one it is about (memory/text/owners.py): "My sister is not allergic to shellfish
   anymore" answers "Is my sister allergic to shellfish?", not "Am I ...?".

Evidence longer than ``QUOTE_CHARS`` is quoted by its best-matching sentence.

A question about the user in general ("What do you know about me?", "What do you
remember about me?", "Who am I?") shares no concept with any fact, so it is not
matched: it lists core's facts about the user, durable ones first, at most
``MAX_LISTED``, and says how many more there are. One about memory in general
("What do you remember?", "Tell me everything you remember") lists the user's
facts first, then core's others (``asks_in_general``).
"""

from __future__ import annotations

import re
from typing import Any

from tiermem.agent.offline_quotable import (
    Forgotten,
    forgotten_answer,
    quoted_already,
    states_forgotten,
)
from tiermem.memory.search.lexical import STOPWORDS
from tiermem.memory.text.asked_owners import about_another
from tiermem.memory.text.clauses import without_statements
from tiermem.memory.text.extract import extract_facts, is_question, normalize_fact
from tiermem.memory.text.forget_requests import asks_to_forget, beside_the_request, not_taken_back
from tiermem.memory.text.owners import Owner, may_be_one, owner_asked
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.updates import read_statement, replaces, subject_of
from tiermem.memory.text.wording import concepts, stem
from tiermem.tools.search_results import FORGOTTEN_KEY

MAX_CORE_QUOTES = 3
#: How much of what a question asks about a withdrawal must deny to answer it.
_MIN_DENIED_SHARE = 0.6
#: Facts listed for a question about the user, or memory, in general.
MAX_LISTED = 12
#: A message this long is a paste the policy files in archival rather than reads.
LONG_TEXT_CHARS = 600
#: Longer evidence is quoted by its sentence that best matches the question.
QUOTE_CHARS = 300
NOTHING_FOUND = "(offline) I found nothing in memory about that."
NOTHING_CURRENT = ("(offline) Nothing I know about that is current: what I had was replaced or "
                   "withdrawn. Ask about the past to see it.")
_CORE_BLOCK = re.compile(r"<core_memory[^>]*>\n(.*?)</core_memory>", re.DOTALL)
_ABOUT_PAST = re.compile(
    r"\b(?:was|were|did|had|used\s+to|before|previous(?:ly)?|former(?:ly)?|earlier|originally"
    r"|ago)\b",
    re.IGNORECASE,
)
#: How this policy's answers begin; one quoted back as a user's text is still an echo.
OWN_ANSWER = "(offline"
NOTHING_ABOUT_YOU = ("(offline) Core memory holds nothing about you yet; ask about something "
                     "specific and I will search the rest of memory.")
#: A question, or request, about the user or memory in general; "about me" in ``me``.
_IN_GENERAL = re.compile(
    r"^\W*(?:(?:so|and|ok|okay|well|hey|now|then)\W+)*(?:"
    r"what\s+(?:else\s+)?(?:do|did|can)\s+you\s+(?:know|remember|recall)"
    r"|what\s+have\s+you\s+(?:got|learned|learnt|stored|kept|remembered)"
    r"|(?:please\s+)?tell\s+me\s+(?:everything|all|what)\s+(?:that\s+)?you\s+"
    r"(?:know|remember|recall)"
    r"|(?P<who>who\s+am\s+i))"
    r"(?P<me>\s+(?:about|of|on)\s+me)?(?:\s+so\s+far)?[\s?.!]*$",
    re.IGNORECASE)
_USERS = re.compile(r"^(?:the\s+)?user\b", re.IGNORECASE)
_WITHHELD = "[withheld"


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def core_facts(messages: list[dict[str, Any]]) -> dict[str, str]:
    """Core facts as rendered in the system message (what a model would read): text ->
    durability."""
    system = messages[0].get("content") or "" if messages else ""
    block = _CORE_BLOCK.search(system)
    if block is None:
        return {}
    facts: dict[str, str] = {}
    durability = "durable"
    for line in block.group(1).splitlines():
        if line.startswith("- "):
            facts[_unescape(line[2:])] = durability
        elif line.endswith(":"):
            durability = line[:-1]
    return facts


def about_past(question: str) -> bool:
    """Whether the question asks how things were rather than how they are."""
    return _ABOUT_PAST.search(question) is not None


_FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself)\b", re.IGNORECASE)
#: A capitalised word after a space: in a question, a name, as its first word is not one.
_NAME = re.compile(r"(?<=\s)[A-Z][\w-]*")


#: A fact about someone of the user's: the relation, and the name that may follow it ("new"
#: or "current" before it says which value, not whose: "User's new address" is the user's).
_RELATIVE = re.compile(
    r"User['’]s\s+(?:(?:new|current|latest|updated|actual)\s+)?([\w-]+)(?:\s+([A-Z][\w-]*))?")


#: A thing named by a noun and an identifier: "customer 8812", "order 55-A", "ticket INC-4411".
_IDENTIFIED = re.compile(r"\b([^\W\d_]{3,})\s+#?([^\W_]*\d[\w-]*)")


#: Kinds of record a number names one of, among many alike: a question about customer 9034
#: wants nothing said of customer 8812. Any other noun before a number ("gate 14", "port
#: 5432", "summer 2019", "version 2") gives a value the question may be checking, and a
#: fact with another value is its answer ("Does my flight leave from gate 12?").
_RECORD_KINDS = frozenset(stem(word) for word in (
    "customer", "client", "account", "order", "ticket", "incident", "case", "invoice",
    "employee", "patient", "member", "subscriber", "user", "shipment", "booking",
    "reservation", "claim", "contract", "tenant", "vendor", "supplier", "student",
))


def _identifiers(text: str) -> dict[str, set[str]]:
    """The records ``text`` identifies, by kind: {"custom": {"8812"}} for "customer 8812";
    a value such as "gate 14", a date or a time identifies none (``_RECORD_KINDS``)."""
    found: dict[str, set[str]] = {}
    for noun, ident in _IDENTIFIED.findall(text):
        kind = stem(noun.casefold())
        if kind in _RECORD_KINDS:
            found.setdefault(kind, set()).add(ident.casefold())
    return found


def _other_identified(fact: str, asked: dict[str, set[str]]) -> bool:
    """Whether ``fact`` names another thing of a kind the question identifies ("Customer 8812
    ..." for "What plan is customer 9034 on?"), and not the one asked about."""
    given = _identifiers(fact)
    return any(noun in given and not given[noun] & ids for noun, ids in asked.items())


def _names(text: str) -> set[str]:
    """The capitalised words of ``text`` but its first, casefolded: "I" and words such as
    "The" that open a sentence are no names."""
    return {stem(w.casefold()) for w in _NAME.findall(text)
            if w != "I" and w.casefold() not in STOPWORDS}


def _core_quotes(core: list[str], question: str, wanted: set[str]) -> list[str]:
    """The core facts that best answer ``question`` (at most ``MAX_CORE_QUOTES``)."""
    named = _names(question)
    asked = _identifiers(question)
    first_person = _FIRST_PERSON.search(question) is not None
    # Words the question writes in lower case, as no name is written.
    common = {stem(w) for w in re.findall(r"[\w-]+", question) if w[:1].islower()}
    scored = []
    for fact in core:
        if _other_identified(fact, asked):
            continue  # "Customer 8812 is on the Pro plan" does not answer for customer 9034
        subject = subject_of(fact) or ""
        # A word the question writes in lower case names no one, capitalised only where it
        # opens the fact ("Customer 8812 doesn't use SSO" for "Does customer 8812 use SSO?").
        own = (_names(" " + fact) & {stem(w) for w in re.findall(r"[\w-]+", subject)}
               ) - {"user"} - common
        if named - own and own - named:
            continue  # about someone else than the one the question names
        if about_another(question, fact):
            continue  # "User is allergic to shellfish" says nothing of the brother asked about
        # "User's car is in Porto" is the user's, but "Where do I live?" does not name
        # the car: "User lives in Lisbon" answers before it.
        whose = _RELATIVE.match(fact)
        relative = whose is not None and not concepts(" ".join(filter(None, whose.groups()))
                                                      ) & wanted
        scored.append((len(wanted & concepts(fact)), relative, subject == "user", fact))
    best = max((score for score, *_ in scored), default=0)
    top = [entry for entry in scored if entry[0] == best and best > 0]
    if first_person and any(users for _, _, users, _ in top):
        top = [entry for entry in top if not entry[1]]
    return [fact for *_, fact in top][:MAX_CORE_QUOTES]


def asks_in_general(text: str) -> str | None:
    """Which sentence of ``text`` asks about the user ("me") or memory ("all") in general,
    as "me" or "all"; None when none does, or when another question is asked beside it
    (that one is searched and answered, rather than lost under a list)."""
    scope = None
    for sentence in split_sentences(text):
        match = _IN_GENERAL.match(sentence)
        if match:
            scope = scope or ("me" if match["me"] or match["who"] else "all")
        elif is_question(sentence):
            return None
    return scope


def _listing(core: list[str], scope: str) -> str:
    """Core's facts about the user (and, for "all", its others after them), bounded."""
    shown = [fact for fact in core if not fact.startswith(_WITHHELD)]
    facts = [fact for fact in shown if _USERS.match(fact)]
    if scope == "all":
        facts += [fact for fact in shown if not _USERS.match(fact)]
    if not facts:
        return NOTHING_ABOUT_YOU if scope == "me" else NOTHING_FOUND
    lines = [f"- From core memory: {fact}" for fact in facts[:MAX_LISTED]]
    if len(facts) > MAX_LISTED:
        lines.append(f"- … and {len(facts) - MAX_LISTED} more in core memory; ask about any "
                     "of them.")
    return "(offline, quoting memory)\n" + "\n".join(lines)


def answer(core: list[str], question: str, found: list[dict[str, Any]]) -> str:
    """The reply to ``question`` from core and this turn's search results."""
    scope = asks_in_general(question)
    if scope is not None:
        return _listing(core, scope)
    wanted = concepts(question)
    past = about_past(question)
    quoted = _core_quotes(core, question, wanted)
    lines = [f"From core memory: {fact}" for fact in quoted]
    asked = _identifiers(question)  # "customer 9034": nothing about customer 8812 is quoted
    archival = [hit for p in found if p.get("tier") == "archival" for hit in p.get("results", [])]
    recall = [hit for p in found if p.get("tier") == "recall" for hit in p.get("results", [])]
    superseded = {normalize_fact(h.get("text", "")) for h in archival if h.get("superseded")}
    said = {normalize_fact(fact) for fact in quoted}
    evidence = list(quoted)
    for hit in archival:
        if (_other_identified(str(hit.get("text", "")), asked)
                or about_another(question, str(hit.get("text", "")))):
            continue
        line = _archival_line(hit, wanted, quoted, past)
        if line:
            lines.append(line)
            said.add(normalize_fact(str(hit.get("text", ""))))
            evidence.append(str(hit.get("text", "")))
    if past or not lines:
        for hit in recall:
            text = _user_statements(hit, question, quoted, superseded, past, said, wanted)
            if text and wanted & concepts(text) and not _other_identified(text, asked):
                lines.append(f"From our conversation ({hit.get('sent')}): {text}")
                evidence.append(text)
    whose = owner_asked(question)
    if not lines:
        # "Am I allergic to peanuts?" after "I'm no longer allergic to peanuts": say so.
        lines = _withdrawals(recall, wanted, frozenset(), whose)
    elif not past and (unanswered := wanted - concepts(" ".join(evidence))):
        # A fact partly withdrawn ("I'm not allergic to shellfish anymore" after "... to
        # peanuts and shellfish") keeps its other part, which alone would leave "Am I
        # allergic to shellfish?" answered with peanuts: the withdrawal answers the rest.
        lines += _withdrawals(recall, wanted, unanswered, whose)
    if not lines:
        retired = any(h.get("superseded") and wanted & concepts(str(h.get("text", "")))
                      and not about_another(question, str(h.get("text", "")))
                      for h in archival)
        return NOTHING_CURRENT if retired else NOTHING_FOUND
    return "(offline, quoting memory)\n" + "\n".join(f"- {line}" for line in dict.fromkeys(lines))


def _archival_line(hit: dict[str, Any], wanted: set[str], current: list[str],
                   past: bool) -> str | None:
    text = str(hit.get("text", ""))
    if not wanted & concepts(text) or hit.get("in_core"):
        return None  # a fact back in core is quoted from core, if it answers
    if hit.get("superseded"):
        # No longer true: evidence about the past only, and said to be so.
        return (f"From archival (superseded {hit['superseded']}, no longer current): {text}"
                if past else None)
    if any(_older_value(text, fact) for fact in current):
        return None
    when = f" (evicted from core {hit['evicted']})" if hit.get("evicted") else ""
    return f"From archival{when}: {_excerpt(text, wanted)}"


def _excerpt(text: str, wanted: set[str]) -> str:
    """``text``, or for a long one its sentence sharing the most with the question."""
    if len(text) <= QUOTE_CHARS:
        return text
    best = max(split_sentences(text), key=lambda s: len(wanted & concepts(s)), default=text)
    return f"…{best[:QUOTE_CHARS]}…"


def _older_value(text: str, current: str) -> bool:
    """Whether ``text`` is another value of what the current fact states."""
    return replaces(current, text, "compared with a current fact")


def _user_statements(hit: dict[str, Any], question: str, current: list[str],
                     superseded: set[str], past: bool, said: set[str], wanted: set[str]) -> str:
    """What the user stated in a recalled message that may stand as evidence for
    ``question`` ('' if none); ``said``: the facts the answer quotes already (their
    ``normalize_fact``)."""
    text = str(hit.get("text", ""))
    if hit.get("role") != "user" or text.startswith(OWN_ANSWER) or len(text) >= LONG_TEXT_CHARS:
        return ""  # a long paste was filed in archival, whose parts are quoted instead
    # The facts of it the user asked to forget (the search result lists them): the message
    # was kept, what it says of them is not evidence.
    forgotten = Forgotten.of(text, [str(fact) for fact in hit.get(FORGOTTEN_KEY) or ()])
    kept = []
    for sentence in not_taken_back(split_sentences(text)):
        if is_question(sentence) or about_another(question, sentence):
            continue
        if asks_to_forget(sentence):  # no evidence: quoted, it would say again what went
            sentence = beside_the_request(sentence)  # "I moved to Faro, so forget that ..."
            if not wanted & concepts(sentence):
                continue
        # Beside another answer, a statement of what was forgotten is cut out of the quote.
        rest = (without_statements(sentence, lambda part: states_forgotten(part, forgotten))
                if forgotten else None)
        if rest is not None and not wanted & concepts(rest):
            continue  # what is left answers nothing asked
        sentence = rest or sentence
        if quoted_already(sentence, said) or forgotten_answer(sentence, forgotten, wanted):
            continue
        if not past and not _still_current(sentence, current, superseded):
            continue
        kept.append(sentence)
    return " ".join(kept)


def _withdrawals(recall: list[dict[str, Any]], wanted: set[str],
                 unanswered: frozenset[str] | set[str], whose: Owner | None) -> list[str]:
    """The answer's lines quoting the user's withdrawals that deny most of what the question
    asks about, and all of ``unanswered``, what the other evidence leaves unsaid, of the
    one the question asks about (``whose``)."""
    return [f"From our conversation ({hit.get('sent')}): {text}" for hit in recall
            if (text := _withdrawal(hit, wanted, unanswered, whose))][:MAX_CORE_QUOTES]


def _withdrawal(hit: dict[str, Any], wanted: set[str],
                unanswered: frozenset[str] | set[str], whose: Owner | None) -> str:
    """The user's withdrawals in a recalled message that deny most of what the question
    asks about, and all of ``unanswered``, of ``whose`` ('' if none): "My sister is not
    allergic to shellfish anymore" says nothing of "Am I allergic to shellfish?"."""
    text = str(hit.get("text", ""))
    if hit.get("role") != "user" or text.startswith(OWN_ANSWER) or len(text) >= LONG_TEXT_CHARS:
        return ""
    kept = []
    for sentence in split_sentences(text):
        if asks_to_forget(sentence):
            continue  # it withdraws nothing the user said was untrue: it asked not to know
        statement = read_statement(sentence)
        denied = statement.denied
        if (wanted and len(wanted & denied) >= _MIN_DENIED_SHARE * len(wanted)
                and unanswered <= denied and may_be_one(whose, statement.about)):
            kept.append(sentence)
    return " ".join(kept)


def _still_current(sentence: str, current: list[str], superseded: set[str]) -> bool:
    statement = read_statement(sentence)
    if statement.change == "retraction":
        return False
    for fact in extract_facts(statement.text) if statement.text else []:
        # A fact an earlier version stored is superseded in the words it stored.
        if any(normalize_fact(t) in superseded for t in (fact.text, *fact.formers)):
            return False
        if any(_older_value(fact.text, now) for now in current):
            return False
    return True
