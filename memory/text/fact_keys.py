"""The de-duplication key of a fact (``fact_norm``): what makes two fact texts the same fact.

Facts are stored with their key (unique across a memory's facts), and a forgotten fact's key
is kept as a hash so extraction does not store it again (memory/ops/forget.py).

The key reads a text in Unicode's composed form (NFC) first: one text typed on two systems
may come composed ("é") or decomposed ("e" and U+0301), and to the user they are the same
text, as they are to ``forget``'s exact matching. Composed text, what nearly every system
sends, is its own NFC, so its key is what versions before this rule computed; a decomposed
text's key is not. Those versions' keys (``earlier_fact_norms``) are stored still, as facts'
norms and as forgotten facts' hashes, so a lookup tries them too (``fact_norms``): a
forgotten fact stays forgotten, and a stored one is found, in either spelling.
"""

from __future__ import annotations

import re
import unicodedata

_SPACES = re.compile(r"\s+")
_QUOTE_FOLD = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "«": '"', "»": '"'})
_SURROUNDING = " .,;:!?…\"'`()[]{}"
_USER_PREFIX = re.compile(r"^(?:user\s*:\s*)+")
_THE_USER = re.compile(r"\b(?:the\s+)+user\b")
_KEY_HEADS = (
    (re.compile(r"^(?:i am|i'm)\b"), "user is"),
    (re.compile(r"^i was\b"), "user was"),
    (re.compile(r"^(?:i have|i've)\b"), "user has"),
    (re.compile(r"^my\b"), "user's"),
)
_KEY_HEAD_VERB = re.compile(r"^i (like|love|hate|prefer|live|work|need|want|use|own)\b")
_KEY_HEAD_PAST = re.compile(r"^i (moved|relocated)\b")
_NORMALIZE_PASSES = 8


def _normalize_once(key: str) -> str:
    key = key.strip(_SURROUNDING)
    key = _USER_PREFIX.sub("", key).strip(_SURROUNDING)
    key = _THE_USER.sub("user", key)
    for pattern, replacement in _KEY_HEADS:
        key = pattern.sub(replacement, key, count=1)
    key = _KEY_HEAD_VERB.sub(lambda m: f"user {m.group(1)}s", key, count=1)
    key = _KEY_HEAD_PAST.sub(lambda m: f"user {m.group(1)}", key, count=1)
    return key.strip(_SURROUNDING)


def _normalized(text: str) -> str:
    """The key as versions before the NFC rule computed it (no Unicode normalisation)."""
    key = _SPACES.sub(" ", text.casefold().translate(_QUOTE_FOLD))
    # Each pass can expose another strippable layer ('"user: I am ..."'); a few passes
    # reach the fixed point for any realistic text.
    for _ in range(_NORMALIZE_PASSES):
        nxt = _normalize_once(key)
        if nxt == key:
            break
        key = nxt
    return key


def normalize_fact(text: str) -> str:
    """The de-duplication key of a fact.

    Composed (NFC, module docstring), casefolded, curly quotes made straight, whitespace
    collapsed, surrounding punctuation and quotes removed; a leading "user:" dropped, "the
    user" read as "user", and a leading "I am"/"I'm"/"I was"/"I have"/"I've"/"my"/"I
    <verb>"/"I moved" read as the user's, the same table ``extract_facts`` rewrites by.
    Nothing else is touched, so distinct facts keep distinct keys.
    """
    return _normalized(unicodedata.normalize("NFC", text))


def fact_norm(text: str) -> str:
    """The key that makes a fact unique: its normalised text, or the text itself (composed,
    casefolded) when normalising leaves nothing."""
    return normalize_fact(text) or unicodedata.normalize("NFC", text).casefold()


def _earlier_fact_norm(text: str) -> str:
    return _normalized(text) or text.casefold()


def earlier_fact_norms(text: str) -> list[str]:
    """The keys versions before the NFC rule gave ``text`` as typed and in its decomposed
    spelling (NFD), where they differ from ``fact_norm``'s: what they stored for it."""
    current = fact_norm(text)
    found = []
    for spelling in (text, unicodedata.normalize("NFD", text)):
        norm = _earlier_fact_norm(spelling)
        if norm != current and norm not in found:
            found.append(norm)
    return found


def fact_norms(text: str) -> list[str]:
    """Every key ``text`` may be stored under: ``fact_norm``'s first, then the earlier
    versions' (``earlier_fact_norms``); one key for a text without accents."""
    return [fact_norm(text), *earlier_fact_norms(text)]
