"""A slip corrected: "Sorry, I meant Portland, not Seattle" puts Portland where Seattle was.

``correction_of(sentence)`` reads "(sorry/oops/no,) I meant X, not Y" (also "I meant X
rather than Y", "... instead of Y", "I meant to say X, not Y") as a ``Correction``: what was
meant, X, and what was said by mistake, Y, each a few words. It states no fact of its own:
Y is to be replaced by X in the fact that said it. ``correction_apart(sentence)`` cuts a
clause of the speaker's own off a correction it follows ("..., not Seattle, and I work at
Acme", or with no comma: "..., not Seattle and I work at Acme"), which is then a statement of
its own.

``target_of(correction, held, new, recent)`` picks that fact among the statements held
(memory/text/clauses.py's ``clauses_of`` parts of the facts in core, and of those stated in
this message): one stated in this message first, else the one the user's most recent message
stated, else the only one that mentions Y. When several mention it and nothing says which
was meant, it picks none, as it does when none does; ``mentioning`` lists them so the caller
can say why. ``corrected(fact, correction)`` is that fact with Y replaced by X (and "a" or
"an" before it fitted to X, "a Pixel" for "an iPhone", "a Honda" or "an hour", when X's
spelling tells) as typed, or in the case Y was stored in when the whole correction was typed
in lower case and X is shaped like a word: a name shaped like a tool's, with a digit or no
vowel ("npm", "k3s"), or a command's word of three letters at most the fact says is used
("uv", "pip" for "User uses Poetry"; not "Sam's" in "User uses Tom's car" nor "Eva" in "User
uses Ana as User's accountant"), is written in lower case on purpose and stays so, while a
place ("portland" for "User lives in Seattle"), a longer name ("Teams" for "User uses
Slack") or anything else takes Y's capitals, one for each word of X wherever Y has one ("San
Francisco is ...", "the Pixel" for "the iPhone": a name replaces a name; a name of a
well-known spelling is spelt so, "iphone" for "Pixel" as "iPhone"), but for a name of Y's
family, opening with the two or more small letters Y opens with before its capital ("pgcat"
for "pgBouncer"), which stays as typed.

Pure functions over strings; the regular expressions are compiled once at import.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tiermem.memory.text.clauses import clauses_of
from tiermem.memory.text.extract import extract_facts, normalize_fact
from tiermem.memory.text.fragments import meant_alone
from tiermem.memory.text.person import third_person
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.statements import own_clauses
from tiermem.memory.text.updates import read_statement

__all__ = ["Correction", "corrected", "correction_apart", "correction_of", "meant_in",
           "mentioning", "number_meant", "target_of"]

_I = re.IGNORECASE
_CORRECTION = re.compile(
    r"^\W*(?:(?:sorry|oops|whoops|oh|no|nope|wait|h(?:old|ang)\s+on|um+|uh+|hmm+|my\s+bad|correction|actually)\b[\s,:;!.–—-]*)*"
    r"i\s+meant(?:\s+to\s+(?:say|write|type))?\s*[:,]?\s+(?P<meant>\S.*?)"
    r"(?:\s*,\s*(?:and\s+)?not|\s+not|\s+rather\s+than|\s+instead\s+of)\s+"
    r"(?P<said>\S.*?)[\s.!;]*$", _I | re.DOTALL)
#: The most words of X or Y: a slip is a word or a name, not a clause.
_MAX_WORDS = 5
_QUOTES = "\"'“”‘’`"
#: What "I meant" is followed by when it explains rather than corrects a word: "I meant it,
#: not as a joke", "I meant to call, not email", "I meant you, not him".
_NOT_A_SLIP = frozenset({"it", "that", "this", "what", "to", "well", "no", "nothing",
                         "everything", "business", "every", "each", "you", "him", "her",
                         "them", "us", "me", "myself", "so", "as", "for", "in", "at", "on"})


#: Where a clause of the speaker's own may open after what was said by mistake: a comma,
#: semicolon or dash, as ``own_clauses`` cuts, or "and", "but" or "so" with none ("..., not
#: Seattle and I work at Acme"), then "I", "I'm", "my" or "we".
_OWN_CLAUSE_AFTER = re.compile(
    r"(?:\s*(?:[,;]|\s[-–—]|(?<=\w)[–—])\s*(?:(?:and|but|so)\s+)?|\s+(?:and|but|so)\s+)"
    r"(?=(?:i|i['’](?:m|ve)|my|we)\b)", _I)


@dataclass(frozen=True)
class Correction:
    """What the speaker meant, and what they said instead, told of the speaker ("my
    brother" as "User's brother")."""

    meant: str
    said: str
    #: Whether the whole correction was typed in lower case, where no word's case was chosen.
    in_lower_case: bool = False


def _words(text: str, speaker: str) -> str | None:
    text = text.strip().strip(_QUOTES).strip()
    if not text or len(text.split()) > _MAX_WORDS or not re.search(r"[^\W_]", text):
        return None
    told = third_person(text, speaker)
    # "I meant I live in Portland": a clause, not a slip of a word.
    return None if told.startswith(f"{speaker}:") else told


def correction_of(sentence: str, speaker: str = "User") -> Correction | None:
    """The correction ``sentence`` makes ("I meant Portland, not Seattle"), or None."""
    match = _CORRECTION.match(sentence.strip())
    if match is None:
        return None
    if match["meant"].split()[0].casefold().strip(_QUOTES + ",") in _NOT_A_SLIP:
        return None
    meant, said = _words(match["meant"], speaker), _words(match["said"], speaker)
    if meant is None or said is None or meant.casefold() == said.casefold():
        return None
    return Correction(meant, said, in_lower_case=sentence == sentence.lower())


#: A number standing alone in a fact or said as meant ("30", "4321", "2.5").
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w.,]*\w)")


def number_meant(sentence: str, told: Sequence[str]) -> Correction | None:
    """A number said as meant with no slip named ("I meant 31") read as the correction of
    the one number of ``told``, the one statement just made ("User is 30" of "I'm 30. I
    meant 31."): no other word it could replace, it is no guess. None when ``told`` is
    not one statement holding one number, or what was meant is no number alone."""
    meant = meant_alone(sentence)
    if meant is None or len(told) != 1 or not _NUMBER.fullmatch(meant.strip()):
        return None
    numbers = _NUMBER.findall(told[0])
    if len(numbers) != 1 or numbers[0] == meant.strip():
        return None
    return Correction(meant.strip(), numbers[0])


def correction_apart(sentence: str) -> list[str]:
    """``sentence`` cut after the correction it opens with when a clause of the speaker's
    own follows ("I meant Portland, not Seattle, and I work at Acme", with the comma or
    without: the correction, then "I work at Acme"), so that each is read on its own; read
    whole, the clause would be taken for part of what was said by mistake. ``[sentence]``
    otherwise."""
    whole = sentence.strip()
    if correction_of(whole) is not None:
        return [sentence]
    # The first cut after which the words before correct a slip: an opener such as
    # "Sorry," is cut off by the clause it opens, and is no correction alone.
    for joint in _OWN_CLAUSE_AFTER.finditer(whole):
        head, rest = whole[:joint.start()], whole[joint.end():]
        # Read as if a comma stood there: a clause that only points back ("... and my
        # wife does") is not cut off.
        if (correction_of(head) is not None and rest
                and own_clauses(f"{head}, {rest}") != [f"{head}, {rest}"]):
            return [head, rest]
    return [sentence]


def _said_in(text: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w'’-]){re.escape(text)}(?![\w-])", _I)


def corrected(fact: str, correction: Correction) -> str | None:
    """``fact`` with what was said by mistake replaced by what was meant; None when it does
    not say it."""
    pieces, end = [], 0
    for said in _said_in(correction.said).finditer(fact):
        meant = _replacement(correction, said)
        pieces += [_article_fitted(fact[end:said.start()], meant), meant]
        end = said.end()
    return "".join([*pieces, fact[end:]]) if pieces else None


#: An article right before a word ("an " of "User uses an iPhone").
_ARTICLE_BEFORE = re.compile(r"(?<![\w'’-])(?P<article>an?)(?P<space>\s+)$", _I)


#: Words whose "h" is not sounded, so they take "an" ("an hour", "an honest mistake").
_SILENT_H = ("hour", "honest", "honor", "honour", "heir")
#: Openings of words whose "u" is sounded "you", so they take "a" ("a user", "a unit", "a
#: USB drive"); "unin"/"unim" are the prefix "un-" ("an uninstaller", "an unimportant ...").
_U_AS_YOU = re.compile(r"^(?:uni(?!n|mp)|us[eua]|usb|uti|ur[aeio]|uk|ubiq|eu)", _I)
#: Openings of words whose "u" is a vowel sound, so they take "an" ("an umbrella", "an
#: update", "an Uber", "an Ubuntu laptop").
_U_AS_VOWEL = re.compile(r"^(?:un(?!i)|unin|unimp|u[mpgdlt][^aeiouy]|uber|ubuntu|udon)", _I)


def _article_for(word: str) -> str | None:
    """"a" or "an" as ``word`` is said ("a Pixel", "an Android", "a Honda", "an hour",
    "a user", "an umbrella"); None when its spelling does not tell: a digit, an acronym
    ("an SSD", "a NAS"), a word opening with "herb" (said both ways), "one" ("a one-off")
    or a "u" none of the openings above places."""
    low = word.casefold()
    if (not low[:1].isalpha() or (len(word) > 1 and word.isupper())
            or low.startswith(("one", "once", "herb"))):
        return None
    if low.startswith("h"):
        return "an" if low.startswith(_SILENT_H) else "a"
    if _U_AS_YOU.match(low):
        return "a"
    if low.startswith("u"):
        return "an" if _U_AS_VOWEL.match(low) else None
    return "an" if low[0] in "aeio" else "a"


def _article_fitted(before: str, meant: str) -> str:
    """``before``, the text before a word corrected, with an article it ends with fitted
    to what replaces the word: "an iPhone" corrected to Pixel is "a Pixel"."""
    found = _ARTICLE_BEFORE.search(before)
    article = _article_for(meant)
    if found is None or article is None or found["article"].casefold() == article:
        return before
    if found["article"][0].isupper():
        article = article.capitalize()
    return before[:found.start()] + article + found["space"]


def meant_in(fact: str, correction: Correction) -> str | None:
    """What ``corrected`` puts in ``fact`` in place of what was said, in the case it is
    stored in ("Portland" for "sorry i meant portland"); None when ``fact`` does not say it."""
    found = _said_in(correction.said).search(fact)
    return None if found is None else _replacement(correction, found)


def _replacement(correction: Correction, said: re.Match[str]) -> str:
    # A speaker who capitalises chose the case typed ("no, I meant green tea, not Earl
    # Grey"; "No, I meant npm, not Yarn"); one typing all in lower case chose none.
    if correction.in_lower_case:
        return _cased_as(correction.meant, said[0], before=said.string[:said.start()],
                         after=said.string[said.end():])
    return correction.meant


#: A name shaped like a tool's or a code's rather than a word: a digit, or no vowel.
_TOOL_SHAPED = re.compile(r"\d|^[^aeiouy]+$", _I)
#: What a fact says before the name of a tool: a verb of using it ("User uses Poetry",
#: "User switched to Poetry"), perhaps with other names listed before it.
_TOOL_USED = re.compile(
    r"\b(?:uses?|used|using|runs?|ran|running|installs?|installed|installing"
    r"|(?:switched|switching|migrated|migrating)\s+(?:over\s+)?to)"
    r"\s+(?:[\w.+#-]+(?:,\s*|\s+and\s+|\s+or\s+))*$", _I)
#: The most letters of a word that names a command typed in lower case ("uv", "pip", "vim");
#: a longer one ("teams" for "Slack") is a product's name as often as not.
_COMMAND_LETTERS = 3
#: What follows a name that is someone's, not a tool: "User uses Tom's car", "User uses Ana
#: as User's accountant".
_SOMEONES = re.compile(r"^(?:['’]s\b|\s+as\b)", _I)
#: The small letters a name opens with before its first capital, two or more ("pg" of
#: "pgBouncer", "mac" of "macOS"): a family's prefix. One letter ("iPhone", "eBay") is
#: shared by chance too often to tell a family ("etsy" for "eBay" is "Etsy").
_FAMILY_PREFIX = re.compile(r"[a-z]{2,}(?=[A-Z])")
#: Words a name's capitals pass over: "a Pixel" for "an iPhone", "Bank of America".
_SMALL_WORDS = frozenset({"a", "an", "the", "of", "and", "de", "da", "van", "von"})
#: Names whose capitals no rule can guess from the name they replace ("Iphone" is no
#: spelling of anyone's): typed in lower case, each is spelt as its makers spell it.
_WELL_KNOWN = {name.casefold(): name for name in (
    "iPhone", "iPad", "iPod", "iMac", "iCloud", "iOS", "macOS", "MacBook", "AirPods",
    "eBay", "YouTube", "GitHub", "GitLab", "LinkedIn", "PayPal", "WhatsApp", "PlayStation",
    "JavaScript", "TypeScript", "PostgreSQL", "MySQL", "ChatGPT", "OpenAI")}


def _cased_as(meant: str, said: str, before: str, after: str = "") -> str:
    """``meant`` in the case ``said`` was stored in, for a correction typed all in lower case
    ("sorry i meant portland, not seattle" corrects "Seattle" to "Portland"): one typed in
    haste should not unmake the name it puts in place of another. An acronym's capitals
    ("AWS") are taken by one word ("GCP"), while words named in its place each take one
    ("Google Cloud"); a word shaped like a tool's name ("npm", "pnpm", "k3s"), or a short
    one the fact says is used (``before``, what it says before ``said``: "uv" for "User
    uses Poetry"), is typed so on purpose, commands being named in lower case, and stays
    as typed, but not a name of several words ("Apple Maps" for "Google Maps"), a longer
    one ("Teams" for "Slack") nor one ``after`` makes someone's ("Sam's" in "User uses
    Tom's car", "Eva" in "User uses Ana as User's accountant"). Any capital ``said`` has,
    even one that opens the fact or follows a small letter ("iPhone"), is a name's; each
    word of ``meant`` but an article or the like takes one ("a Pixel" for "an iPhone";
    "The Pixel" where it opens the fact), or its makers' capitals where they are well
    known ("an iPhone" for "a Pixel", not "an Iphone"), since "Green Tea" is a smaller
    slip than "San francisco", unless ``meant`` opens with the small letters ``said``
    opens with before its capital, two or more: "pgcat" for "pgBouncer" is of its family,
    which spells its names its own way ("pgCat"? "PgCat"?), so it stays as typed rather
    than take a capital none of them opens with."""
    if not meant.islower() or said.islower():
        return meant
    if len(said) > 1 and said.isupper() and " " not in meant:
        return meant.upper()
    family = _FAMILY_PREFIX.match(said)
    if family and " " not in meant and meant.startswith(family[0]) and meant != family[0]:
        return meant  # "pgcat" for "pgBouncer": of its family, spelt as typed
    if " " not in meant and (_TOOL_SHAPED.search(meant) or (
            len(meant) <= _COMMAND_LETTERS and _TOOL_USED.search(before)
            and not _SOMEONES.match(after))):
        return meant
    if any(letter.isupper() for letter in said):
        # A small word that opens the fact opens a sentence: "The Pixel is User's phone".
        opens_fact = not before.strip()
        return " ".join(word if word in _SMALL_WORDS and not (at == 0 and opens_fact)
                        else _WELL_KNOWN.get(word, word[:1].upper() + word[1:])
                        for at, word in enumerate(meant.split(" ")))
    return meant


def mentioning(correction: Correction, facts: Sequence[str]) -> list[str]:
    """The facts that say what the correction takes back."""
    pattern = _said_in(correction.said)
    return [fact for fact in facts if pattern.search(fact)]


def _stated(message: str) -> set[str]:
    """The keys of the statements ``message`` made, as the offline policy stores them."""
    keys: set[str] = set()
    for sentence in split_sentences(message):
        statement = read_statement(sentence)
        if statement.change == "retraction" or not statement.text:
            continue
        for fact in extract_facts(statement.text):
            for text in (fact.text, *fact.formers):
                keys.update(normalize_fact(part) for part in (text, *clauses_of(text)))
    return keys


def target_of(correction: Correction, held: Sequence[str], new: Sequence[str],
              recent: Sequence[str]) -> str | None:
    """The statement among ``held`` the correction changes (module docstring): ``new``
    holds this message's statements, ``recent`` the user's earlier messages, newest first."""
    candidates = mentioning(correction, held)
    this_message = [part for part in candidates if part in new]
    if this_message:
        return this_message[-1]
    for message in recent:
        stated = _stated(message)
        said = [part for part in candidates if normalize_fact(part) in stated]
        if said:
            return said[0] if len(said) == 1 else None
    return candidates[0] if len(candidates) == 1 else None
