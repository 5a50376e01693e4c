"""The forms a request to forget is typed in again: the same words with another final
full stop, other trailing whitespace or another capitalisation.

The audit keeps only a keyed hash of each request as it was typed, which cannot be
normalised after the fact, and audits written before must keep matching. So a request
made again is hashed in each form a person plausibly typed the first one in, and any of
them equal to an audited hash is the same request. Only what exact matching itself
ignores (``ExactOptions``) is varied: a memory that tells "ABCD" from "abcd", or "?" from
".", holds two such requests to be two requests, and the second is no repeat of the first.
"""

from __future__ import annotations

from tiermem.memory.ops.forget_config import ExactOptions

#: What a sentence typed by hand ends with; the request as typed may end with any of them.
_ENDINGS = ("", ".", "!", "?", "...", "\u2026")
_TRAILING = ".!?\u2026 \t\r\n"


def request_forms(request: str, exact: ExactOptions) -> set[str]:
    """``request`` in each form a person may have typed it before (``request`` included),
    varied only where ``exact`` matching would see the same text."""
    core = request.rstrip(_TRAILING) if exact.ignore_final_punctuation else request
    if not core:
        return {request}
    endings = _ENDINGS if exact.ignore_final_punctuation else ("",)
    cases = {core}
    if not exact.case_sensitive:
        lowered = core.lower()
        cases |= {lowered, core.upper(), core[0].upper() + core[1:],
                  core[0].lower() + core[1:], lowered[0].upper() + lowered[1:]}
    return {request} | {case + ending for case in cases for ending in endings}
