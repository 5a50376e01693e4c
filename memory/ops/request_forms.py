"""The forms a request to forget is typed in again: the same words with another final
full stop, other trailing whitespace or another capitalisation.

The audit keeps only a keyed hash of each request as it was typed, which cannot be
normalised after the fact, and audits written before must keep matching. So a request
made again is hashed in each form a person plausibly typed the first one in, and any of
them equal to an audited hash is the same request.
"""

from __future__ import annotations

#: What a sentence typed by hand ends with; the request as typed may end with any of them.
_ENDINGS = ("", ".", "!", "?", "...", "\u2026")
_TRAILING = ".!?\u2026 \t\r\n"


def request_forms(request: str) -> set[str]:
    """``request`` in each form a person may have typed it before (``request`` included)."""
    core = request.rstrip(_TRAILING)
    if not core:
        return {request}
    lowered = core.lower()
    cases = {core, lowered, core.upper(), core[0].upper() + core[1:],
             core[0].lower() + core[1:], lowered[0].upper() + lowered[1:]}
    return {request} | {case + ending for case in cases for ending in _ENDINGS}
