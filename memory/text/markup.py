"""Text as console markup that shows it as written: what a user, a model or a store holds,
put in a rich markup template.

Rich's own ``escape`` does not always give the text back: its markup drops a backslash
before a "[" that opens no tag (``a\\[b]`` shows as ``a[b]``) and shows a trailing one
twice (``C:\\`` as ``C:\\\\``), and it takes time quadratic in a run of backslashes.
This module is below the agent, so that a report the memory prints can use it too.
"""

from __future__ import annotations

import re

#: A "[" whose markup would not show the text: one that opens a tag (group 1 set), and one
#: after a backslash, which markup drops. Found by its "[" alone: a search for a literal
#: is fast, and so each run of backslashes is read back once, from its "[".
_BRACKET_TO_ESCAPE = re.compile(r"\[(?:(?=[a-z#/@][^[]*?\])()|(?<=\\\[))")

#: Ends a text that ends in backslashes: an empty span of no style. Without it, a tag the
#: template puts after the text would take the run as escaping it, other text would not,
#: and no one form of the run reads right before both.
_BACKSLASHES_END = "[none][/none]"


def _backslashes_before(text: str, at: int) -> int:
    start = at
    while start and text[start - 1] == "\\":
        start -= 1
    return at - start


def escape(text: str) -> str:
    """``text`` as console markup that shows exactly ``text``, wherever a template puts it
    (before a tag, other text or nothing), in time linear in the length of ``text``."""
    def escaped(found: re.Match[str]) -> str:
        if found[1] is None:
            return "\\["  # one more backslash, for the one markup drops
        # Markup shows half of the backslashes before a tag; an odd one escapes the tag.
        return "\\" * (_backslashes_before(text, found.start()) + 1) + "["

    escaped_text = _BRACKET_TO_ESCAPE.sub(escaped, text)
    trailing = len(text) - len(text.rstrip("\\"))
    # Doubled, as before a tag: the one that ends them shows half.
    return escaped_text + "\\" * trailing + _BACKSLASHES_END if trailing else escaped_text
