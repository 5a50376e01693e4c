"""What a "too" or an "either" opening a message points back to: the statement that closed
the user's last message ("My son is allergic too" after "I'm allergic to peanuts"), and
the sentences of a message that only share it and so tell no fact ("The database too."
with nothing before it to share), or deny it of a person when it says what a thing is
("Ana isn't." after "Tom's car is red."), and what a message that only takes something back, and
changed nothing, is told: "I like tea. I don't anymore." took back its own, and "I like
tea. Forget that." forgot "I like tea".

Pure functions over strings; agent/offline_statements.py and agent/offline.py read them.
"""

from __future__ import annotations

from tiermem.memory.text.cancelled_requests import cancelled_requests
from tiermem.memory.text.ellipses import (
    share_closing_dropped,
    shares_alone,
    with_ellipses_filled,
)
from tiermem.memory.text.extract import extract_facts, is_question
from tiermem.memory.text.forget_requests import brushes_off
from tiermem.memory.text.joined_requests import (
    asked_new_ones,
    hedged_new_ones,
    other_names_told,
    plans_joined,
    secrets_given_a_word,
)
from tiermem.memory.text.own_denials import withdrawn
from tiermem.memory.text.said_again import (
    corrected_in_place,
    meant_unplaced,
    values_of_another_kind,
)
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.statements import forgets_the_last, own_clauses
from tiermem.memory.text.taken_back import taken_back_apart
from tiermem.memory.text.unsaid_denials import denies_a_things, denies_nothing_said
from tiermem.memory.text.updates import read_statement

__all__ = ["NOTHING_MATCHED", "cancelled_notes", "dropped_notes", "forgot_nothing_more",
           "retraction_note", "said_last", "shares_dropped"]

#: What a request to take back says when it found nothing held to take back.
NOTHING_MATCHED = "(offline) Nothing in core memory matched that, so nothing changed."


def said_last(recent: list[str]) -> str | None:
    """The last statement of the user's last message (``recent``: their earlier messages,
    newest first), which "My son is allergic too" may point back to; None after a
    question."""
    # That message's own "too" is filled from the one before it in turn.
    said = with_ellipses_filled(split_sentences(recent[0]), said_last(recent[1:])
                                ) if recent else []
    return said[-1] if said and not is_question(said[-1]) else None


def shares_dropped(text: str, recent: list[str]) -> list[str]:
    """The sentences of ``text`` that only share what one before them says ("The database
    too.") and that no statement before them tells in full, so no fact holds them
    (``recent``: the user's earlier messages, newest first)."""
    sentences, before = split_sentences(text), said_last(recent)
    return [sentence for at, sentence in enumerate(sentences) if shares_alone(sentence)
            and len(with_ellipses_filled(sentences[:at + 1], before))
            == len(with_ellipses_filled(sentences[:at], before))
            ] + [share for sentence in sentences if (share := share_closing_dropped(sentence))]


def dropped_notes(text: str, recent: list[str]) -> list[str]:
    """What the reply says of the sentences of ``text`` that were not stored because alone
    they tell no fact: a share (``shares_dropped``), and a denial opening it of a person
    when the last message said what a thing is or does ("Ana isn't." after "Tom's car is
    red."), which is no person's, a value said again of another kind than the one taken
    back, and what "I meant" named in the place of nothing (``recent``: the user's earlier
    messages, newest first)."""
    notes = []
    if dropped := shares_dropped(text, recent):
        quoted, one = " and ".join(f'"{shared.strip()}"' for shared in dropped), len(dropped) == 1
        notes.append(f"(offline) {quoted} alone {'does' if one else 'do'} not say who shares "
                     "what (a word alone may name someone or something), so I did not store "
                     f"{'it' if one else 'them'}; say {'it' if one else 'each'} in full to "
                     "store it.")
    first, before = next(iter(split_sentences(text)), ""), said_last(recent)
    if (before is not None and denies_nothing_said(first) and denies_a_things(before, first)
            and not extract_facts(first)):
        notes.append(f'(offline) "{first.strip()}" alone does not say what is denied ("'
                     f'{before.strip().rstrip(".!;:")}" is said of a thing, not of a person), so '
                     "I did not store it; say it in full to store it.")
    # "I like green tea. Forget that, I meant coffee.": no one word for coffee to replace
    for meant in meant_unplaced(taken_back_apart(split_sentences(text)), before):
        notes.append(f'(offline) I could not tell what "{meant}" takes the place of in what '
                     "you took back, so I did not store it; say the fact in full to store it.")
    # "My wife is a nurse. Ignore that, it's on Monday.": not the nurse's new value
    for other in values_of_another_kind(taken_back_apart(split_sentences(text)), before):
        notes.append(f'(offline) "{other}" does not say what it is of (it is no value of the '
                     "kind taken back), so I did not store it; say it in full to store it.")
    for asked in asked_new_ones(split_sentences(text)):
        said = f'"{asked}?"' if asked else "the new one"
        notes.append(f"(offline) You asked {said} rather than told it, so I did not keep it "
                     "as the new one; say it plainly to keep it.")
    for hedged in hedged_new_ones(split_sentences(text)):
        said = f'"{hedged}"' if hedged else "a value"
        notes.append(f"(offline) You said the new one may be {said} rather than told it, so I "
                     "did not keep it as the new one; say it plainly to keep it.")
    for other in other_names_told(split_sentences(text)):
        notes.append(f'(offline) I did not keep "{other}" as the new one: it does not read as '
                     "a name.")
    for secret in secrets_given_a_word(split_sentences(text)):
        # "Forget my PIN. No wait, it's Maria.": the word went with no word of it
        notes.append(f'(offline) I did not keep the word after it as your new {secret}; say '
                     f'"My {secret} is ..." to keep it.')
    return notes


def cancelled_notes(text: str) -> list[str]:
    """What the reply says of the requests to forget that ``text`` takes back as it makes
    them ("Forget my PIN. Never mind."): nothing was forgotten for them."""
    taken_back = cancelled_requests(split_sentences(text))[1]
    if not taken_back:
        return []
    quoted = " and ".join(f'"{said.strip().rstrip(".!;:,")}"' for said in taken_back)
    return [f"(offline) You took back {quoted} in the same message, so nothing was forgotten "
            "for it."]


def retraction_note(text: str, recent: list[str]) -> str | None:
    """What the reply says to ``text`` when it takes something back and nothing else was
    said of it: what it took back of its own ("I like tea. Forget that." forgot "I like
    tea"; "I like tea. I don't anymore." took it back), and a "Forget that." that found
    nothing left to take back, or that nothing held matched; None when ``text`` takes
    nothing back (``recent``: the user's earlier messages, newest first)."""
    sentences = split_sentences(text)
    # "Ignore that, it's fine" and "Scratch that, he's not" take back as "Ignore that." does
    if not any(read_statement(sentence).change == "retraction"
               for sentence in [*sentences, *_requests_apart(sentences, recent),
                                # "I want my PIN gone" of no PIN held
                                *plans_joined(sentences)]):
        return None
    forgotten, idle, withdrew = _taken_back(sentences, recent)
    notes = []
    if forgotten:
        quoted = " and ".join(f'"{said.strip().rstrip(".!;:,")}"' for said in forgotten)
        notes.append(f"(offline) You asked me to forget {quoted} in the same message, so "
                     "nothing was stored.")
    if withdrew:
        notes.append("(offline) You took that back in the same message, so nothing was stored.")
    if notes and idle:
        notes.append(_forgot_nothing(idle[0][0]))
    return "\n".join(notes) or NOTHING_MATCHED


def forgot_nothing_more(text: str, recent: list[str], first_forgot_none: bool = False
                        ) -> str | None:
    """What the reply says of a "Forget that." in ``text`` said again after another took
    back what was told before it ("Forget that. Forget that." after "I like tea"): it
    found nothing more to take back, or, after a first that forgot none of several facts
    (``first_forgot_none``), none either; None when ``text`` has none."""
    again = [said for said, after_another in _taken_back(split_sentences(text), recent)[1]
             if after_another]
    if again and first_forgot_none:
        return f'(offline) "{again[0].strip()}" said again forgot none either.'
    return _forgot_nothing(again[0]) if again else None


def _forgot_nothing(request: str) -> str:
    return f'(offline) "{request.strip()}" found nothing more to take back, so it forgot nothing.'


def _taken_back(sentences: list[str], recent: list[str]
                ) -> tuple[list[str], list[tuple[str, bool]], bool]:
    """What ``sentences`` (a message's) told and then asked to forget ("I like tea" of "I
    like tea. Forget that."); each "Forget that." with nothing told before it to take back,
    and whether a request or a withdrawal came before it; and whether a sentence took back
    one before it ("I like tea. I don't anymore."). "My son is too" after "I'm allergic
    to peanuts" (of ``recent``) told "My son is allergic to peanuts"."""
    sentences = _requests_apart(sentences, recent)
    told: str | None = None  # the last sentence that stated something still standing
    forgotten: list[str] = []
    idle: list[tuple[str, bool]] = []
    withdrew = took_back = False
    for at, sentence in enumerate(sentences):
        if forgets_the_last(sentence):
            if told is None:
                idle.append((sentence, took_back))
            else:
                forgotten.append(told)
            told, took_back = None, True
        elif withdrawn(sentence, [fact.text for fact in extract_facts(" ".join(sentences[:at]))]):
            withdrew = took_back = True
            told = None
        elif not is_question(sentence) and extract_facts(sentence):
            told = sentence
    return forgotten, idle, withdrew


def _requests_apart(sentences: list[str], recent: list[str]) -> list[str]:
    """``sentences`` with each bare request to forget read apart from what it goes on to
    say, as the statements are read: "Scratch that, I like coffee" forgets what came before
    and tells the coffee, "Scratch that, he's not" forgets it and says of him what the
    sentence taken back did, and "Ignore that, it's fine" only forgets it."""
    before = said_last(recent)
    return [part for sentence in with_ellipses_filled(
        corrected_in_place(taken_back_apart(sentences), before), before)
        for part in _request_apart(sentence)]


def _request_apart(sentence: str) -> list[str]:
    """``sentence`` with a bare request to forget that opens it read apart from what it
    goes on to tell ("Forget that, I'm vegan"), and whole when that only says "never
    mind" ("Forget it, I'll do it myself")."""
    clauses = own_clauses(sentence)
    if (len(clauses) > 1 and forgets_the_last(clauses[0])
            and not brushes_off(clauses[0], clauses[1])):
        return clauses
    return [sentence]
