"""Words by which a user's sentence says that what follows is not so: wished, planned,
supposed, nearly done, denied, given up or only sought ("I'd love to live in Berlin",
"I quit my job at Acme", "I applied to Acme"), each read with its neighbours: "I'd been
living" is done, "I'll always live" holds now, and "two days left at Acme" gives up
nothing, nor "I left Berlin and moved to Munich", a move. For memory/text/asserted.py.
Pure functions over strings.
"""

from __future__ import annotations

from tiermem.memory.text.said_of import on_an_errand

__all__ = ["DONE", "TIMELESS", "not_so"]

#: Words by which what follows is wished, planned, supposed, nearly done, denied, given up
#: or lost ("I quit my job at Acme", "I stopped taking propranolol", "I left Acme", "I got
#: laid off from Acme"), or only sought ("I applied to Acme").
_NOT_SO = frozenset({
    "quit", "quits", "quitting", "stopped", "stopping", "left", "leaving", "resigned",
    "resigning", "retired", "retiring", "fired", "laid", "applied", "applying",
    "interviewed", "interviewing",
    "want", "wants", "wanted", "wanting", "wanna", "hope", "hopes", "hoped", "hoping",
    "wish", "wishes", "wished", "wishing", "dream", "dreams", "dreamed", "dreamt", "dreaming",
    "plan", "plans", "planned", "planning", "intend", "intends", "intended", "intending",
    "consider", "considers", "considered", "considering", "thinking", "try", "tries",
    "tried", "trying", "supposed", "gonna", "would", "could", "might", "should", "will",
    "shall", "must", "almost", "nearly", "if", "unless", "whether", "maybe", "perhaps",
    "someday", "not", "never", "no", "cannot", "nor", "neither", "nothing",
})
#: Words that, before "to", say what follows is only meant or near ("I'd been meaning to
#: move to Berlin", "I'm about to start at Acme").
_BEFORE_TO = frozenset({"mean", "means", "meant", "meaning", "about"})
#: Verbs of setting off somewhere: "I'm about to head to work".
_COMMUTE = frozenset({"go", "head", "leave", "drive", "walk", "cycle", "bike", "ride"})
#: Words between "I'd" and what it did ("I'd already moved") that say nothing of it.
TIMELESS = frozenset({"always", "already", "just", "never", "recently", "long", "once",
                      "only", "also"})
#: What "I'd" did rather than would do: "I'd been living", "I'd moved" (not "I'd need").
DONE = frozenset({"been", "had", "gone", "done", "seen", "known", "taken", "left", "got",
               "gotten", "become", "begun", "grown"})
#: Words after which "left" is what someone did ("I left Acme", "I've just left Acme").
_LEAVERS = frozenset({"i", "we", "i've", "we've", "i'd", "we'd", "have", "has", "had", "and",
                      "just", "finally", "already", "recently", "eventually", "then", "also",
                      "since", "actually", "officially", "user"})
#: A move made, which "left" before it starts: "I left Berlin and moved to Munich".
_MOVED = frozenset({"moved", "relocated", "emigrated"})
#: Words between a subject and its move: "and then finally moved", "we'd later moved".
_ON_THE_WAY = frozenset({"then", "later", "soon", "finally", "eventually", "just", "also",
                         "quickly", "had", "have"})
#: Who moved when the move is the speaker's: "... and moved", "... when I moved"; none
#: (the place left itself) in "I left Berlin, moved to Munich".
_SPEAKER_MOVING = frozenset({"", "and", "i", "we", "i've", "we've", "i'd", "we'd"})
#: "may" in lower case; "May" may be the month.
_MAY = "may"


def not_so(words: list[str], at: int) -> bool:
    """Whether ``words[at]`` says what follows it is not so, read with its neighbours:
    "I'd been living" and "I'd lived" are "had", "I'll always live" lives there now, and
    "left" is given up after its subject ("I left Acme"), not after what remains ("two
    days left at Acme")."""
    word = words[at]
    folded = word.casefold()
    if folded.endswith("'d"):
        done = next((w.casefold() for w in words[at + 1:] if w.casefold() not in TIMELESS), "")
        return not (done in DONE or (done.endswith("ed") and not done.endswith("eed")))
    if folded.endswith("'ll") or folded in {"will", "shall"}:
        return not (at + 1 < len(words) and words[at + 1].casefold() == "always")
    if folded == "left":
        return (at == 0 or words[at - 1].casefold() in _LEAVERS) and not _left_on_a_move(
            words[at + 1:])
    if folded in _BEFORE_TO:
        # "I'd been meaning to go to work at Acme" may mean a job; "about to" the trip,
        # but "I was about to go to work at Acme" is a job that never came, and one "for
        # an interview" a job not yet had.
        trip = (folded == "about" and _off_to_work(words[at + 2:at + 5])
                and not (at and words[at - 1].casefold() in {"was", "were"})
                and not on_an_errand(" ".join(words[at + 5:])))
        return at + 1 < len(words) and words[at + 1].casefold() == "to" and not trip
    return folded in _NOT_SO or word == _MAY or folded.endswith("n't") or folded == "going"


def _left_on_a_move(after: list[str]) -> bool:
    """Whether ``after``, the words after "left", name a place the speaker then moved on
    from: "I left Berlin and moved to Munich" is a move, not a home given up; "I left
    Berlin when my parents moved to Munich" is the parents' move, and Berlin still left."""
    folded = [word.casefold() for word in after]
    moved = next((at for at, word in enumerate(folded) if word in _MOVED), 0)
    if not (moved and after[0][:1].isupper()):
        return False
    # Whoever moved is said just before the move, past "then", "later" and the like.
    mover = next((word for word in reversed(folded[1:moved]) if word not in _ON_THE_WAY), "")
    return mover in _SPEAKER_MOVING


def _off_to_work(words: list[str]) -> bool:
    """Whether ``words`` say one is setting off to work ("go to work", "head for work"):
    only the trip is near, the job is held ("I'm about to go to work at Acme")."""
    folded = [word.casefold() for word in words]
    return (len(folded) == 3 and folded[0] in _COMMUTE and folded[1] in {"to", "for"}
            and folded[2] == "work")
