"""What the offline policy makes of a user's statements: the core facts to retire and the
facts to append.

A fact that changes an earlier one (memory/text/updates.py: "I moved to Porto", "my phone
number is actually ...", "I no longer work at Acme") retires the old fact; a retraction
states nothing new, unless it denies nothing held ("I can't eat gluten anymore" is then
stored as said). A new value of a durable fact is durable; a greeting's "I'm X" names the
user only while no other name is held. A slip corrected ("Sorry, I meant Portland, not
Seattle": memory/text/corrections.py) retires the fact that said it and appends it as
meant. The statements of a compound fact count one by one (memory/text/clauses.py). A
bare "Forget that" takes back the statement just told, a correction's or a "too"'s as read
when said, and holds again what it replaced, unless the memory forgot that since
(agent/offline_restored.py).

Everything here reads strings and returns them: the policy (agent/offline.py) turns the
result into ``core_memory_replace`` and ``core_memory_append`` calls, so every change goes
through the real tool dispatch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from tiermem.agent.offline_kin import of_one_person, one_of_several
from tiermem.agent.offline_parts import parts_of
from tiermem.agent.offline_read import sentences_read
from tiermem.agent.offline_replay import (
    Step,
    ended_by_last,
    only_retracted,
    replayed,
    stated_by_last,
)
from tiermem.agent.offline_restored import not_forgotten, put_back
from tiermem.agent.offline_said_last import said_last
from tiermem.memory.text.appositions import kept_of_the_name, with_the_relation_kept
from tiermem.memory.text.changed_to import changed_of_held
from tiermem.memory.text.clauses import clauses_of, statements_of
from tiermem.memory.text.corrections import (
    corrected,
    correction_of,
    number_meant,
    target_of,
)
from tiermem.memory.text.extract import extract_facts, is_question, normalize_fact
from tiermem.memory.text.joint_shares import member_shares, shares_kept, shares_not_denied
from tiermem.memory.text.keep_requests import keeps_nothing_held, names_alone
from tiermem.memory.text.names_kept import with_the_name_kept
from tiermem.memory.text.negations import as_denied
from tiermem.memory.text.own_denials import withdrawn
from tiermem.memory.text.referents import named_for_it
from tiermem.memory.text.resumptions import (
    at_the_time_said,
    brought_back_with,
    takes_back_a_cancellation,
    time_resumed,
)
from tiermem.memory.text.retractions import named_in_its_words, retracted, still_held
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.statements import (
    as_news,
    forgets_the_last,
    keeps_the_last,
    names_what_to_forget,
    read_statement,
)
from tiermem.memory.text.updates import (
    replaces,
    said_in_full,
    stated_beside,
    with_the_time_kept,
)

__all__ = ["core_changes", "told_last"]

#: Cues that say what holds now, not that a word said before was wrong: with one, a name
#: said shorter ("My brother is Tom now" after "... is Tom Smith") is still the one held in
#: full, where "No, my brother is Tom" or "..., not Tom Smith" corrects it.
_NOT_A_CORRECTION = frozenset({None, "now", "these days", "nowadays"})


def core_changes(text: str, core: dict[str, str], recent: list[str] | None = None,
                 forgotten: Callable[[str], bool] | None = None,
                 still_stored: Callable[[str], bool] | None = None
                 ) -> tuple[list[str], dict[str, str]]:
    """What the statements of ``text`` change in ``core`` (each fact with its durability):
    the facts to retire, as they are held, and then the facts to append, with theirs.
    Retired are what the statements change or deny; appended, the facts they state.

    Each statement of a compound fact ("The production region is eu-west-1 and the
    staging region is us-east-2") counts on its own: a sentence that joins several is
    stored as one fact for each, and when a statement held in a compound fact changes,
    that fact is retired and the statements of it that still hold stay as facts; one
    said again is that fact said again.

    A slip corrected ("Sorry, I meant Portland, not Seattle") retires the statement that
    said it (``target_of``: one of this message, else of the most recent of ``recent``,
    the user's earlier messages newest first, else the only one held) and states it
    again as meant; when none is found, nothing is stored.

    A fact put back from ``recent`` (what a "Forget that." or a "back on" takes back to)
    is not one the user said now: when ``forgotten`` says the memory forgot it since, it
    stays forgotten, as extraction leaves it; one a "Forget that." would hold again stays
    away too when ``still_stored`` says the memory no longer holds it (erased)."""
    current = dict(core)
    stored_as = {normalize_fact(text): text for text in current}
    new: dict[str, str] = {}
    retired: list[str] = []
    changed_now: set[str] = set()  # told in this message as a change ("I live in Faro now")

    def drop(fact: str) -> None:
        if fact in current:
            del current[fact]
            retired.append(fact)
        # One held and said again in this message is in both.
        new.pop(fact, None)

    def held() -> dict[str, list[str]]:
        """Each statement held, in a fact of its own or in compound ones: every fact
        that holds it (one it changes must leave none of them saying it)."""
        facts: dict[str, list[str]] = {}
        for fact in [*current, *new]:
            for part in clauses_of(fact):
                holders = facts.setdefault(part, [])
                if fact not in holders:
                    holders.append(fact)
        return facts

    def retire(parts: list[str], facts: dict[str, list[str]], keep: str | None = None
               ) -> bool:
        """Retire the facts holding ``parts`` (``facts``: ``held()``) but ``keep``,
        keeping the other statements of a compound one; whether a fact retired was
        durable."""
        durable = False
        for fact in dict.fromkeys(holder for part in parts for holder in facts[part]
                                  if holder != keep):
            kind = {**current, **new}[fact]
            durable |= kind == "durable"
            drop(fact)
            for other in clauses_of(fact):
                if other not in parts and other != fact:
                    new.setdefault(other, kind)
        return durable

    sentences = sentences_read(text, held, recent)
    # What the last sentence of this message that stated, changed or asked something
    # stated: a "Forget that." after it points back at that, not at an earlier message;
    # after only "Okay." it still points at the message before.
    # What that sentence ended ("I moved to Porto" ends "User lives in Lisbon") is put
    # back when it is forgotten: taking the move back is no move away from Lisbon. So is
    # what the last message ended, when "Forget that." points back at it.
    just_told: list[str] | None = None
    just_ended: tuple[dict[str, str], dict[str, str]] = ({}, {})
    previous, before, retired_before = "", dict(new), len(retired)
    held_before = dict(current)
    for sentence in [part for whole in sentences
                     for part in parts_of(whole, held, core_changes)]:
        added = [fact for fact in new if fact not in before]
        if forgets_the_last(previous):
            # What a "Forget that." took back, or put back, is told no more: a second one
            # ("Forget that. Forget that.") has nothing left to take back.
            just_told, just_ended = [], ({}, {})
        elif (added or len(retired) > retired_before or any(f not in new for f in before)
              or (previous and is_question(previous))):
            just_told = added
            just_ended = ({f: k for f, k in held_before.items() if f not in current},
                          {f: k for f, k in before.items() if f not in new})
        said_before = previous
        previous, before, retired_before = sentence, dict(new), len(retired)
        held_before = dict(current)
        if (is_question(sentence) or keeps_the_last(sentence, current)
                or keeps_nothing_held(sentence, current) or names_alone(sentence)):
            continue  # "Keep my PIN" or "my PIN": of a PIN held changes nothing, of none keeps none
        # "I'm 30. I meant 31.": the one number this message told is the slip; after
        # "I'm 30. Tom is 40." it could be either
        correction = correction_of(sentence) or number_meant(
            sentence, [part for fact in new for part in clauses_of(fact)]
            if just_told else [])
        if correction is not None:
            facts = held()
            target = target_of(correction, list(facts), [p for f in new for p in clauses_of(f)],
                               recent or [])
            meant = corrected(target, correction) if target is not None else None
            if target is not None and meant is not None:
                kind = {**current, **new}[facts[target][0]]
                durable = retire([target], facts)
                new.setdefault(meant, "durable" if durable else kind)
            continue
        # "My job changed to nurse" of a job held tells the job, as "I changed my job to" does
        statement = read_statement(changed_of_held(sentence, current) or sentence)
        if statement.change not in (None, "retraction") and statement.text[:2].casefold() == "it":
            # "Actually it's on Monday" after "The meeting is on Friday": the meeting's day
            statement = replace(statement, text=named_for_it(
                statement.text, said_before or said_last(recent or []), statement.change))
        if statement.change == "retraction":
            facts = held()
            denied = retracted(statement.denied, list(facts), statement.about,
                               every=names_what_to_forget(sentence), said=sentence)
            taken_back = False
            if forgets_the_last(sentence):
                # "Forget that." names nothing: it is the fact just told, when only one
                # was; of several, which one nothing says, so the reply asks.
                # A member's share split off a joint fact it ended is no statement of
                # its own: putting the joint fact back takes it back (put_back).
                split = {share for ended in just_ended for fact in ended
                         for share in member_shares(fact)}
                told = (told_last(recent or [], list(facts)) if just_told is None else
                        [part for fact in just_told for part in clauses_of(fact)
                         if part not in split])
                brought = brought_back_with(told, [*told, *stated_by_last(
                    _replayed(recent or []), facts)])
                own = [part for part in told if part not in brought]
                # Said right after one sentence of several facts, it takes that sentence
                # back whole: "Ana is my sister and Tom is my brother. Scratch that."
                # kept both, the request lost without a word.
                denied = [*own, *brought] if len(own) == 1 or just_told is not None else []
                # After a message of its own that told nothing and asked to forget nothing
                # ("I no longer work at Globex") it takes that back: what it ended is held
                # again. Said in the same message, it asks to forget what was retracted.
                taken_back = just_told is None and only_retracted(recent or [],
                                                                  _replayed(recent or []))
            else:
                # "I moved to Faro, so forget my address": what this message told is the
                # user's news, not what the request asks to forget, unless the request
                # names it ("My PIN is 1234. Forget my PIN.").
                denied = [part for part in denied if any(fact in core for fact in facts[part])
                          or named_in_its_words(part, sentence, news=part in changed_now)]
            if not denied and not statement.denied:  # "I don't anymore" after "I smoke"
                denied = [part for part in withdrawn(sentence, told_last(recent or [], list(
                    facts)) if just_told is None else just_told) if part in facts]
            news = as_news(sentence)
            if denied or not statement.denied or news is None:
                kinds = {part: {**current, **new}[facts[part][0]] for part in denied}
                retire(denied, facts)
                if (denied or taken_back) and forgets_the_last(sentence):
                    ended = ended_by_last(_replayed(recent or []), current)
                    put_back(just_ended if just_told is not None
                             else ({}, not_forgotten(ended, forgotten, still_stored)),
                             current, new, retired)
                for part, kind in kinds.items():
                    # "not allergic to shellfish" leaves the peanuts of a list of two,
                    # "I no longer work at Globex" Tom's share of "Tom and User work at ..."
                    rest = still_held(part, statement.denied)
                    for holds in ([rest] if rest is not None
                                  else shares_not_denied(part, statement.about)):
                        new.setdefault(holds, kind)
                continue
            # Nothing held says what it denies: dropping it would lose what the user
            # said ("I can't eat gluten anymore"), so it is stored as said; a request
            # to forget something is not (news is None).
            statement = news
        for said in extract_facts(statement.text):
            # "Hi, I'm Nervous" beside "User's name is Maya" is no new name.
            extracted = stated_beside(said, held())
            # A fact an earlier version stored in its own words is re-asserted as it is.
            fact = next((stored_as[key] for key in map(normalize_fact, extracted.formers)
                         if key in stored_as), extracted.text)
            parts = ([(fact, extracted.durability)] if fact in current
                     else statements_of(fact, extracted.durability))
            # A compound fact stated again changes none of its own statements, and
            # none of the statements one sentence joins changes another ("The incident
            # is sev1 and is P1").
            siblings = {part for part, _ in parts}
            for part, kind in parts:
                facts = held()
                full = next((old for old in facts if said_in_full(part, old)), None)
                if statement.change in _NOT_A_CORRECTION and full is not None:
                    # "My brother is Tom" after "... is Tom Smith" is him again: the fact
                    # held is said again, as a fact repeated word for word is.
                    holder = next((fact for fact in facts[full] if fact in current), None)
                    if holder is not None:
                        new.setdefault(holder, current[holder])
                    continue
                # "The database is down too" holds beside "... is slow": it ends nothing.
                replaced = [] if statement.beside else one_of_several(part, of_one_person(
                    part, [old for old, holders in facts.items()
                           if holders != [part] and old not in siblings
                           and replaces(part, old, statement.change)]), recent or [])
                # "The meeting is at noon now" after "... on Friday at 3pm" keeps the day, and
                # "... on Monday now" the hour; "I smoke now" after "User doesn't smoke" is
                # said as the denial was, "User smokes".
                part = next((kept for old in replaced if (kept := with_the_time_kept(
                    part, old) or as_denied(part, old)) is not None), part)
                # "My wife works at Acme now" keeps the name "User's wife Ana ..." held
                # "Tom works at Initech now" keeps whose he is, "Anna's husband Tom ...",
                # unless the same sentence names her anew (", her name is Eva")
                part = (with_the_name_kept(part, replaced, [*current, *new, *siblings])
                        or with_the_relation_kept(part, replaced) or part)
                # "I work at Acme now" ends "Tom and User work at Globex", not Tom's job
                shares = {share: {**current, **new}[facts[old][0]] for old in replaced
                          for share in (*shares_kept(part, old), *kept_of_the_name(part, old))}
                durable = retire(replaced, facts, keep=part)
                for share, share_kind in not_forgotten(shares, forgotten).items():
                    new.setdefault(share, share_kind)
                # "The meeting is back on" after "... cancelled" is due when it was again.
                if takes_back_a_cancellation(part, replaced):
                    steps = _replayed(recent or [])
                    resumed = time_resumed(part, [step.after for step in steps],
                                           [step.stated for step in steps],
                                           (recent or [])[::-1])
                    if resumed is not None and not_forgotten({resumed: kind}, forgotten):
                        # "back on at 5pm": "back on", and the time moved to 5pm
                        part, resumed = at_the_time_said(part, resumed)
                        # "on Monday", said while it was called off, is "on Monday at
                        # 3pm" now that the hour it had is brought back with it.
                        facts = held()
                        retire([old for old in facts if old != resumed
                                and replaces(resumed, old, None)], facts)
                        new.setdefault(resumed, kind)
                # One an earlier version stored joined to another ("Customer 9034 uses
                # SSO and is on the Team plan") is that fact stated again.
                part = next((fact for fact in held().get(part, ()) if fact in current),
                            part)
                new.setdefault(part, "durable" if durable else kind)
                if statement.change is not None:
                    changed_now.add(part)
    return retired, new


def _replayed(recent: list[str]) -> tuple[Step, ...]:
    """The user's earlier messages (``recent``, newest first) said again in order to an
    empty core, oldest first (agent/offline_replay.py)."""
    return replayed(recent, core_changes)


def told_last(recent: list[str], held: list[str]) -> list[str]:
    """The facts of ``held`` that the user's last message (``recent``: their earlier
    messages, newest first) stated; none if it stated one that is no longer held, so that
    a bare "Forget that" never retires another fact in its stead."""
    if not recent:
        return []
    # "I am too" states what it shares with the message before it.
    _, stated = core_changes(recent[0], {}, recent[1:])
    told = [part for fact in stated for part in clauses_of(fact)]
    if not (told and all(part in held for part in told)) and not any(
            map(forgets_the_last, split_sentences(recent[0]))):
        # A correction ("Sorry, I meant Portland, not Seattle") states nothing alone, and
        # a "too" ("My son is allergic too") something else: each is read as it was when
        # said, after the messages before it. What a "Forget that." put back is none the
        # user told: a second one would take the first back.
        told = [part for fact in _replayed(recent)[-1].stated for part in clauses_of(fact)]
    return told if told and all(part in held for part in told) else []
