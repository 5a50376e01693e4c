"""A statement that a thing of the speaker's was changed to a value ("I changed my PIN to
4321", "My PIN has changed to 4321"), said as what it now is ("my PIN is 4321").
"""

from __future__ import annotations

import re

__all__ = ["changed_to"]

_I = re.IGNORECASE
_APOS = "['’]"
_CHANGED_MY = re.compile(
    rf"^(?:i(?:\s+have|{_APOS}ve)?\s+(?:changed|updated|switched)\s+my\s+(?P<attribute>.+?)"
    rf"|my\s+(?P<changed>[^,;]+?)(?:\s+(?:has|was|got)|{_APOS}s)?\s+(?:been\s+)?"
    # a code or number, not a time: "My flight changed to 6pm" is no "flight is 6pm"
    r"(?:changed|updated)(?=\s+to\s+[^\d]*\d)(?!.*\d\s*(?:am|pm)\b|.*\d:\d))"
    r"\s+to\s+(?P<value>.+)$",
    _I,
)


def changed_to(text: str) -> str | None:
    """``text`` ("I changed my PIN to 4321.") said as what the thing now is ("my PIN is
    4321"), or None when it tells no such change."""
    changed = _CHANGED_MY.match(text.rstrip(".!"))
    if changed is None:
        return None
    return f"my {changed['attribute'] or changed['changed']} is {changed['value']}"
