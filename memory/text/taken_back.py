"""A bare request to take back what was said last, read apart from what follows it.

"Scratch that, she's a doctor" takes back the last fact and says what another person is
instead; "Forget it. It was a joke." only says why the fact was said. What a request to
forget is, is memory/text/forget_requests.py's.
"""

from __future__ import annotations

import re

from tiermem.memory.text.forget_requests import brushes_off_about_it, forgets_the_last

__all__ = ["taken_back_apart"]

_I = re.IGNORECASE

#: Where a bare "Scratch that" gives way to what another person is instead ("Scratch that,
#: she's a doctor", "..., Tom is"): a clause of the speaker's own ("..., I'm vegetarian now")
#: is cut apart with the statement (``own_clauses``), and "Forget about it, ..." brushes off.
_THEN_ANOTHER = re.compile(r"\s*(?:[,;:]|\s[-–—]|(?<=\w)[–—])\s*(?:(?:but|so)\s+)?"
                           r"(?=(?:she|he|they)\b|(?!(?:i|it|my|our|we|thanks|please|sorry|never|no|ok"
                           r"|okay)\b)(?-i:[A-Z])\w*\s+\w+\s+\w)", _I)


#: Why what was taken back was said, after the request ("It was a joke.", "Just kidding."):
#: nothing to keep of its own.
_NO_FACT_MEANT = re.compile(
    r"^\W*(?:(?:it|that)\s+was\s+(?:just\s+|only\s+)?(?:an?\s+)?(?:joke|typo|mistake)"
    r"|(?:i\s+was\s+|i['’]m\s+)?(?:just\s+)?(?:joking|kidding))\W*$", _I)


def taken_back_apart(sentences: list[str]) -> list[str]:
    """``sentences`` with a bare request to forget cut off what another person is said to be
    instead, beside it in one sentence ("Scratch that, she's a doctor": two): read whole, the
    request was stored as a quote beside what it took back, whose pronoun the other sentence
    names ("User's wife is a doctor" after "My wife is a nurse"); and without a sentence after
    the request that only says why it was said ("It was a joke.")."""
    out: list[str] = []
    for sentence in sentences:
        if out and forgets_the_last(out[-1]) and _NO_FACT_MEANT.match(sentence) is not None:
            continue  # "Forget it. It was a joke.": why, stored as a fact of its own
        cut = _THEN_ANOTHER.search(sentence)
        request = sentence[:cut.start()] if cut is not None else ""
        if (cut is None or not forgets_the_last(request)
                or brushes_off_about_it(request)):
            out.append(sentence)
            continue
        said = sentence[cut.end():]
        out += [request.rstrip() + ".", said[:1].upper() + said[1:]]
    return out
