"""A bare request to take back what was said last, read apart from what follows it.

"Scratch that, she's a doctor" takes back the last fact and says what another person is
instead; "Forget it. It was a joke." only says why the fact was said. What a request to
forget is, is memory/text/forget_requests.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.forget_requests import brushes_off_about_it, forgets_the_last
from tiermem.memory.text.given_names import is_first_name
from tiermem.memory.text.relations import relation_of

__all__ = ["taken_back_apart"]

_I = re.IGNORECASE

#: Where a bare "Scratch that" gives way to what another person is instead ("Scratch that,
#: she's a doctor", "..., Tom is"): a clause of the speaker's own ("..., I'm vegetarian now")
#: is cut apart with the statement (``own_clauses``), and "Forget about it, ..." brushes off.
#: The one it is said of: a pronoun, or a capitalised word with a verb and more after it,
#: which is someone only as ``_is_someone`` reads it ("Tea is overrated" is of no one).
_THEN_ANOTHER = re.compile(r"\s*(?:[,;:]|\s[-–—]|(?<=\w)[–—])\s*(?:(?:but|so)\s+)?"
                           r"(?=(?P<pronoun>she|he|they)\b"
                           r"|(?P<name>(?-i:[A-Z])[\w'’-]*)\s+\w+\s+\w)", _I)
#: A verb of saying right after the one named ("Anna said so", "she told me"): a remark on
#: why the fact was said or taken back, not what that person is, has or does.
_SAYS = re.compile(r"(?:['’]s)?\s+(?:(?:just|only|also|already)\s+)?(?:said|says|told|tells"
                   r"|thinks|thought|asked|asks|insisted|suggested|reckons|claims|claimed"
                   r"|mentioned)\b", _I)


def _is_someone(name: str, held: list[str]) -> bool:
    """Whether the capitalised word ``name`` names a person: a common first name ("Tom"),
    or one a fact ``held`` gives as someone of the user's ("User's boss is Zed", "Zed is
    User's boss")."""
    if is_first_name(name):
        return True
    word = re.escape(name)
    relation = re.compile(
        rf"(?<![\w'’]){word}\s+(?:is|was)\s+User['’]s\s+(?P<noun>[a-z][\w-]*)"
        rf"|User['’]s\s+(?P<its>[a-z][\w-]*)(?:['’]s\s+name)?\s+(?:(?:is|was)\s+)?"
        rf"(?:(?:called|named)\s+)?{word}(?![\w'’])")
    return any(relation_of(found["noun"] or found["its"]) is not None
               for fact in held for found in relation.finditer(fact))


#: Why what was taken back was said, after the request ("It was a joke.", "Just kidding."):
#: nothing to keep of its own.
_NO_FACT_MEANT = re.compile(
    r"^\W*(?:(?:it|that)\s+was\s+(?:just\s+|only\s+)?(?:an?\s+)?(?:joke|typo|mistake)"
    r"|(?:i\s+was\s+|i['’]m\s+)?(?:just\s+)?(?:joking|kidding))\W*$", _I)


def taken_back_apart(sentences: list[str], held: Iterable[str] = ()) -> list[str]:
    """``sentences`` with a bare request to forget cut off what another person is said to be
    instead, beside it in one sentence ("Scratch that, she's a doctor": two): read whole, the
    request was stored as a quote beside what it took back, whose pronoun the other sentence
    names ("User's wife is a doctor" after "My wife is a nurse"); and without a sentence after
    the request that only says why it was said ("It was a joke."). ``held``: the facts held,
    which may give a name that is no common first name as someone's ("Zed")."""
    facts = list(held)
    out: list[str] = []
    for sentence in sentences:
        if out and forgets_the_last(out[-1]) and _NO_FACT_MEANT.match(sentence) is not None:
            continue  # "Forget it. It was a joke.": why, stored as a fact of its own
        cut = _THEN_ANOTHER.search(sentence)
        request = sentence[:cut.start()] if cut is not None else ""
        if (cut is None or not forgets_the_last(request) or brushes_off_about_it(request)
                or _SAYS.match(sentence, cut.end() + len(cut["pronoun"] or cut["name"]))
                or (cut["name"] is not None and not _is_someone(cut["name"], facts))):
            # "Scratch that, Tea is overrated", "..., Anna said so": read whole, as ever
            out.append(sentence)
            continue
        said = sentence[cut.end():]
        out += [request.rstrip() + ".", said[:1].upper() + said[1:]]
    return out
