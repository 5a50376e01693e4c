"""Words naming where a thing is done or what with, by kind: systems ("iOS", "Linux"),
browsers, environments ("prod", "staging"), devices ("web", "mobile"), networks, file
formats, processors and clouds.

They serve one purpose: telling what a bare denial after a doing said at one place denies.
"Search works on iOS but Android doesn't" denies Android as a place of the same kind as
iOS, so it says "Search doesn't work on Android"; "Python runs on Linux but Ruby doesn't"
denies Ruby, which is no place Python runs on but another that runs (or not) on Linux.
Only two words of one kind tell the denied one from another doer, so the lists need not
be complete: a word they miss leaves the sentence as said (memory/text/unsaid_denials.py).
A word is added only if it names a place of its line's kind alone.
The common words among them, written lower case within a sentence ("mobile", "prod"),
are told from names ("Windows", "Azure"), which keep their capital. Pure functions over
strings.
"""

from __future__ import annotations

import re

__all__ = ["is_common_word", "kind_of_place", "same_kind_of_place"]

#: Lower case, as a word is compared folded; each line is one kind.
_KINDS = tuple(frozenset(kind.split()) for kind in (
    "ios android windows linux mac macos osx ubuntu debian fedora chromeos ipados",
    "chrome chromium firefox safari edge opera brave",
    "prod production staging stage dev development qa test testing uat local localhost "
    "sandbox preview",
    "web mobile desktop tablet phone iphone ipad laptop tv",
    "wifi wi-fi ethernet bluetooth lte 3g 4g 5g cellular",
    "csv pdf json xml yaml html markdown txt xlsx docx png jpg jpeg gif svg",
    "x86 x64 arm arm64 amd64",
    "aws azure gcp heroku",
))

#: The words above that are no name, lower case within a sentence: "doesn't work on mobile".
_COMMON = frozenset({
    "prod", "production", "staging", "stage", "dev", "development", "test", "testing",
    "local", "localhost", "sandbox", "preview", "web", "mobile", "desktop", "tablet",
    "phone", "laptop", "tv", "wifi", "wi-fi", "ethernet", "cellular",
})

#: A word saying whose or which, no part of the place: "the Mac", "my laptop".
_DETERMINER = re.compile(r"^(?:the|my|our|your|this|that)\s+", re.IGNORECASE)


def kind_of_place(words: str) -> int | None:
    """Which kind of place ``words`` name ("the Mac" -> systems), as an index into the
    kinds; None when they name none this module knows, or more than one word."""
    word = _DETERMINER.sub("", words.strip()).casefold()
    return next((index for index, kind in enumerate(_KINDS) if word in kind), None)


def same_kind_of_place(one: str, other: str) -> bool:
    """Whether ``one`` and ``other`` are places of one kind ("iOS" and "Android", "web"
    and "mobile"), not "Linux" and "Ruby", nor "Windows" and "Firefox"."""
    kind = kind_of_place(one)
    return kind is not None and kind == kind_of_place(other)


def is_common_word(word: str) -> bool:
    """Whether ``word`` is a place of no name ("Mobile", "prod"), written lower case
    within a sentence, not a name ("Windows", "Firefox", "Azure") nor one of letters
    ("QA", "TV")."""
    return word.casefold() in _COMMON and word[1:].islower()
