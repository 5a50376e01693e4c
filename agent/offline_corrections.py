"""What the offline policy says of a slip the user corrected ("Sorry, I meant Portland,
not Seattle"): which fact it changed, or why it changed none.

The policy's reply is written after its tool calls have run, from the messages alone, so
the notes are read back from what the turn did: a fact appended that is a statement held
before (one the turn retired, or one the message itself stated) with the slip corrected.
When no such fact was appended, the turn changed nothing the slip is in, so core as it
stands says why: no fact says it, or more than one does and nothing said which. What was
meant said alone ("Sorry, I meant Portland") names no slip, so the note asks for it; what
something is not said alone ("Sorry, it's not 4321") states nothing, and the note says so.
"""

from __future__ import annotations

import json
from typing import Any

from tiermem.agent.offline_answers import LONG_TEXT_CHARS, core_facts
from tiermem.agent.offline_said_last import said_last
from tiermem.agent.offline_statements import told_last
from tiermem.memory.text.clauses import clauses_of
from tiermem.memory.text.corrections import (
    corrected,
    correction_apart,
    correction_of,
    meant_in,
    mentioning,
    number_meant,
)
from tiermem.memory.text.extract import extract_facts
from tiermem.memory.text.forget_beside import means_instead, names_which_one
from tiermem.memory.text.forget_requests import forget_opening, forgets_the_last
from tiermem.memory.text.fragments import (
    corrects_nothing,
    denied_alone,
    meant_alone,
    meant_mine,
    no_then,
    without_asides,
)
from tiermem.memory.text.joined_requests import slip_before_it
from tiermem.memory.text.secret_again import named_secret_denied, secret_denied, secret_meant
from tiermem.memory.text.sentences import split_sentences

__all__ = ["RECENT_MESSAGES", "correction_notes", "recent_statements"]

#: How many of the user's earlier messages a correction looks back through for the
#: statement it corrects.
RECENT_MESSAGES = 10


def recent_statements(messages: list[dict[str, Any]]) -> list[str]:
    """The user's messages before the last one, newest first (at most ``RECENT_MESSAGES``;
    a long paste, filed in archival rather than read, is left out)."""
    users = [str(m.get("content") or "") for m in messages if m.get("role") == "user"][:-1]
    return [text for text in reversed(users) if len(text) < LONG_TEXT_CHARS][:RECENT_MESSAGES]


def _turn_calls(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The calls made since the user's message, as (tool name, arguments)."""
    start = max(i for i, m in enumerate(messages) if m["role"] == "user")
    calls = []
    for message in messages[start + 1:]:
        for call in message.get("tool_calls") or []:
            try:
                arguments = json.loads(call["function"].get("arguments") or "{}")
            except ValueError:
                continue
            calls.append((call["function"]["name"], arguments))
    return calls


def _parts(facts: list[str]) -> list[str]:
    return [part for fact in facts for part in clauses_of(fact)]


def _unnamed_slip(meant: str, told: list[str]) -> str:
    """The note for what was meant said with no slip named: which word it replaces is a
    guess even in a fact of one value ("a Pixel" for the phone or the carrier of "User uses
    an iPhone on Vodafone"), and a wrong guess loses a fact, so it asks; it names the fact
    the user's last message told, the one the correction most likely concerns."""
    where = f' in "{told[0]}"' if len(told) == 1 else ""
    return (f'(offline) I can\'t tell which word "{meant}" corrects{where}, so I corrected '
            f'nothing; say what it corrects: "I meant {meant}, not ...".')


def _denied_alone(denied: str, told: list[str]) -> str:
    """The note for what something is not said with nothing it is said of ("Sorry, it's
    not 4321"): no fact states it, nor is one changed by it."""
    kept = f' and kept "{told[0]}" as it is' if len(told) == 1 else ""
    return f'(offline) "not {denied}" tells nothing that is so, so I stored nothing{kept}.'


def correction_notes(messages: list[dict[str, Any]], text: str) -> list[str]:
    """A note for each slip ``text``, the user's message, corrects, from the calls the turn
    made and core after them, as ``messages`` show them (module docstring)."""
    calls = _turn_calls(messages)
    core = list(core_facts(messages))
    appended = [str(args.get("content", "")) for name, args in calls
                if name == "core_memory_append"]
    retired = [str(args.get("old_content", "")) for name, args in calls
               if name == "core_memory_replace" and not args.get("new_content")]
    before = _parts(retired) + _parts([fact.text for fact in extract_facts(text)])
    notes = []
    sentences = [part for whole in split_sentences(text) for part in correction_apart(whole)]
    for at, sentence in enumerate(sentences):
        if at and forget_opening(sentences[at - 1].strip()) and (
                means_instead(sentence) or names_which_one(sentence)):
            continue  # "Forget my PIN. I meant 4321." stores the PIN meant: no slip
        if at and forget_opening(sentences[at - 1].strip()) and slip_before_it(sentence):
            continue  # "Forget my boss. No wait, it's Maria.": Maria is the new boss
        if at and forgets_the_last(sentences[at - 1]) and corrects_nothing(sentence):
            continue  # "Forget that. I meant Porto." says it in place of "Lisbon": no slip
        told_here = _parts([fact.text for fact in extract_facts(" ".join(sentences[:at]))])
        correction = correction_of(sentence) or number_meant(sentence, told_here)
        if correction is None:
            bare = without_asides(sentence)
            # "Oops, it's not bob" or "It's hunter3" of the password just told
            secret = sentences[at - 1] if at else said_last(recent_statements(messages))
            alone = meant_alone(bare) or meant_mine(bare) or secret_meant(bare, secret)
            denied = denied_alone(bare) or secret_denied(bare, secret)
            if (named := named_secret_denied(bare)) is not None:
                # "My password, it's not bob": of the password held, not the last fact
                notes.append(_denied_alone(named[1], [
                    part for part in _parts(core) if part.startswith(f"User's {named[0]} is ")]))
                continue
            if denied is not None:
                told = (_parts(appended) if at and appended
                        else told_last(recent_statements(messages), _parts(core)))
                notes.append(_denied_alone(denied, told))
                continue
            if alone is None and len(sentences) == 1 and not appended:
                alone = no_then(sentence)
                if alone is None or not (told := told_last(recent_statements(messages),
                                                           _parts(core))):
                    continue
                notes.append(_unnamed_slip(alone, told))
            elif alone is not None:
                # "I'm 30. I meant 31.": the fact this message told, not the last message's
                told = (_parts(appended) if at and appended
                        else told_last(recent_statements(messages), _parts(core)))
                notes.append(_unnamed_slip(alone, told))
            continue
        said, meant = correction.said, correction.meant
        # Each part corrected once, and none when the turn appended no fact to compare.
        fixed = [(part, corrected(part, correction)) for part in before] if appended else []
        done = [fact for fact in appended if any(text == fact for _, text in fixed)]
        if done:
            # As stored: "sorry i meant portland" is stored, and said, as "Portland".
            stored = next(meant_in(part, correction) for part, text in fixed if text in done)
            notes.append(f'(offline) Corrected "{said}" to "{stored}": {"; ".join(done)}.')
            continue
        holding = mentioning(correction, _parts(core))
        if not holding:
            notes.append(f'(offline) No fact in core memory says "{said}", so I could not '
                         f'correct it to "{meant}"; nothing was stored.')
        else:
            notes.append(f'(offline) More than one fact says "{said}" ({"; ".join(holding)}), '
                         f'so I corrected none; say which one you meant.')
    return notes
