"""Where a thing is done or what with, by kind: systems ("iOS", "Linux"), browsers,
environments ("prod", "staging"), devices ("web", "mobile"), networks and file formats.

"Search works on iOS but Android doesn't" denies Android as a place of the same kind as
iOS, so it says "Search doesn't work on Android"; "Python runs on Linux but Ruby doesn't"
denies Ruby, which is no place Python runs on but another that runs (or not) on Linux.
Only two words of one kind tell the denied one from another doer: a word these lists
miss leaves the sentence as said (memory/text/unsaid_denials.py). Pure functions over
strings.
"""

from __future__ import annotations

import re

__all__ = ["kind_of_place", "same_kind_of_place"]

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
