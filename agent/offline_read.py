"""The sentences the offline policy reads a user's message as, each standing on its own.

A message is cut into sentences (memory/text/sentences.py), and each is then made to say
in full what it says only with its neighbours or with the message before it: a greeting's
"I'm Maya", a "too" or a bare denial, a handover, a pronoun; agent/offline_statements.py
reads the result one sentence at a time.
"""

from __future__ import annotations

from collections.abc import Callable

from tiermem.agent.offline_said_last import said_last
from tiermem.memory.text.bare_denials import with_bare_denials_filled
from tiermem.memory.text.cancelled_requests import still_asked
from tiermem.memory.text.ellipses import with_ellipses_filled
from tiermem.memory.text.forget_requests import named_last
from tiermem.memory.text.handed_over import with_handed_over
from tiermem.memory.text.introductions import with_introductions
from tiermem.memory.text.openings import with_said_about
from tiermem.memory.text.pronoun_subjects import with_pronouns_named
from tiermem.memory.text.said_again import corrected_in_place
from tiermem.memory.text.secret_again import with_secret_named
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.statements import each_named_apart
from tiermem.memory.text.taken_back import taken_back_apart
from tiermem.memory.text.there import placed

__all__ = ["sentences_read"]


def sentences_read(text: str, held: Callable[[], dict[str, list[str]]],
                   recent: list[str] | None) -> list[str]:
    """The sentences of ``text`` as read, each whole; ``held``: each statement held and the
    facts holding it; ``recent``: the user's earlier messages, newest first."""
    # "Hi!" and "I'm Maya" name the speaker only together, as "don't forget about X;"
    # and "it starts at 2am" say something of X only together.
    # "I live in Lisbon. I also work there." works in Lisbon.
    # "I'm not on call anymore, Priya is" says Priya is on call.
    # "Forget my locker code and my gym." asks to forget each.
    # "He no longer works at Globex" is of Tom, named just before, not of the user.
    # The handover is split before ellipses are filled: read as an ellipsis of the
    # denial, "..., but Priya is too" stored "Priya is not on call anymore".
    # "I'm not anymore, but my wife is" denies what was said before it ("I'm vegan").
    # "Scratch that, she's a doctor" takes back the last fact, then names who "she" is.
    # "It's still hunter2" after "My password is hunter2." is the password said again.
    last = said_last(recent or [])
    return with_pronouns_named(placed(with_ellipses_filled(with_handed_over(
        with_bare_denials_filled(with_introductions(with_said_about(each_named_apart(
            corrected_in_place(still_asked(taken_back_apart(with_secret_named(
                split_sentences(text), last, held()), held()), held()), last),
            held(),
            named_last(recent[0]) if recent else ()))), last)), last)),
        next(iter(recent or []), None))
