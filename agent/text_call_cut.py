"""A reply the token limit cut where a call's markup begins or ends (agent/text_tool_calls.py):
the start of a closing tag after a whole call, and a call cut before its name, are no reply."""

from __future__ import annotations

import re

from tiermem.agent.text_call_mistral_prose import MISTRAL_CALLS, name_shaped, prose_word
from tiermem.agent.text_call_objects import END_OF_TURN, NAMESPACES
from tiermem.agent.text_call_tags import begins_call

__all__ = ["cut_opening_alone", "without_cut_closing", "without_cut_opening"]

#: The tags that close calls, which a reply cut at the token limit may end inside.
_CLOSINGS = ("</tool_call>", "</function>", "<|/tool_call|>")
#: The tags and markers that open calls, and a call cut before its name: the tag or marker
#: and the start of the name, or the opening brace with no whole "name" yet.
_OPENINGS = ("<tool_call>", "<|tool_call|>", "<function=", "[TOOL_CALLS]", "<|python_tag|>")
_LONGEST_OPENING = max(map(len, _OPENINGS))
_CUT_OPENING = re.compile(r"(?:(?:<tool_call>|<\|tool_call\|>)\s*)?<function=[\w.\-]*>?\Z"
                          r"|(?:<tool_call>|<\|tool_call\|>|<\|python_tag\|>|\[TOOL_CALLS\])"
                          r"\s*(?:[\[{][^<>\]]*|[\w.\-]+(?:\[[A-Z_]*)?)?\Z")
_NAME_FIELD = re.compile(r"[\"']name[\"']\s*:\s*[\"'][^\"']")
#: How a call object or a list of them begins, its name not yet written.
_OBJECT_STARTS = ('[{"name":"', '{"name":"')
#: One word, as a tool's name is written.
_WORD = re.compile(r"[\w.\-]+")
#: The word a marker or tag ends with at the cut, which may begin a cut call's name.
_MARKED_WORD = re.compile(r"(?:\]|\|>|l>)\s*([\w.\-]+)\Z")


def without_cut_closing(text: str) -> str:
    """``text`` without the start of a closing tag or end-of-turn token the token limit cut
    it in (``...}}</tool_c``, ``...}}<|eo``): the call before it is whole, and the fragment
    is no reply."""
    stripped = text.rstrip()
    start = stripped.rfind("<")
    fragment = stripped[start:]
    if start > 0 and any(tag.startswith(fragment) and tag != fragment
                         for tag in (*_CLOSINGS, *END_OF_TURN)):
        return stripped[:start]
    return text


def without_cut_opening(text: str, names: frozenset[str]) -> tuple[str, str]:
    """``text`` without a call the token limit cut before its name (``...</tool_call>
    <tool_c``, ``<tool_call>{"na``, ``[TOOL_CALLS]send_mes``), and that call's text; or
    ``text`` and "" when it ends otherwise, also when a word after a marker is prose
    (``[TOOL_CALLS] Done.``, ``[TOOL_CALLS]Done``: ``prose_word``) or the marker is text in
    the call before it (``"message": "a [TOOL_CALLS] b``)."""
    stripped = text.rstrip()
    fragment = next((stripped[-size:] for size in range(_LONGEST_OPENING - 1, 1, -1)
                     if any(o.startswith(stripped[-size:]) for o in _OPENINGS)), "")
    if fragment and stripped[:-len(fragment)].strip() \
            and begins_call(stripped, len(stripped) - len(fragment), MISTRAL_CALLS):
        return stripped[:-len(fragment)], fragment
    for match in _CUT_OPENING.finditer(stripped):
        if not begins_call(stripped, match.start(), MISTRAL_CALLS):
            continue  # inside the JSON text of the call before it: '"message": "a [TOOL_CALLS] b'

        word = _MARKED_WORD.search(match.group(0))
        if word and prose_word(word.group(1), names,
                               mistral=match.group(0).startswith("[TOOL_CALLS]")):
            continue  # "[TOOL_CALLS] Done." and "[TOOL_CALLS]Done" are prose, "functions." no
        if stripped[:match.start()].strip() and not _NAME_FIELD.search(match.group(0)):
            return stripped[:match.start()], match.group(0)
    return text, ""


def cut_opening_alone(text: str, names: frozenset[str]) -> bool:
    """Whether ``text``, all a reply the token limit cut, is a call's opening and no more: a
    tag or marker alone (``[TOOL_CALLS]``, ``<tool_call>``), or with the start of a call
    object (``<tool_call>{"na``) or of an offered name after it (``[TOOL_CALLS]send_mes``,
    ``<function=core_mem``), or a word written as a tool's name after Mistral's marker
    (``[TOOL_CALLS]get_wea``, which a reply not cut calls), but not a word that begins none
    (``[TOOL_CALLS]Forget``, prose)."""
    stripped = text.strip()
    opening = next((o for o in _OPENINGS if stripped.startswith(o)), "")
    after = stripped[len(opening):].strip()
    if not opening or (opening == "<function=" and after.startswith("{")):
        return False
    compact = "".join(after.split()).replace("'", '"')
    return any(start.startswith(compact) for start in _OBJECT_STARTS) \
        or any(f"{space}{name}".startswith(after.removesuffix(">"))
               for name in names for space in ("", *NAMESPACES)) \
        or (opening == MISTRAL_CALLS and _WORD.fullmatch(after) is not None
            and name_shaped(after, names))
