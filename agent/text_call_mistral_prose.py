"""Prose beside Mistral's call marker (agent/text_call_markup.py): a sentence after the
last marker, behind whole calls (``...[TOOL_CALLS] I saved it.``) or alone
(``[TOOL_CALLS] Done.``), is the model's reply, not a call to a tool named by its first word."""

from __future__ import annotations

import json
import re
import unicodedata
from difflib import get_close_matches

from tiermem.agent.text_call_fences import shown_as_example
from tiermem.agent.text_call_objects import NAMESPACES, offered_name
from tiermem.agent.text_call_tags import marker_starts

__all__ = ["LEAD_ENDS", "MISTRAL_ARGS", "MISTRAL_CALLS", "MISTRAL_WRITTEN", "follows_calls",
           "is_prose", "marked_prose", "name_shaped", "prose_after_calls", "prose_word",
           "without_marker_after_calls"]

MISTRAL_CALLS, MISTRAL_ARGS = "[TOOL_CALLS]", "[ARGS]"
_DECODER = json.JSONDecoder()
#: A call's name as written, then whatever follows it, which does not read as arguments.
MISTRAL_WRITTEN = re.compile(r"\s*([\w.\-]{1,200})(.*)", re.DOTALL)
#: A capitalised word, which begins a sentence rather than names a tool.
_CAPITALISED = re.compile(r"[A-Z][a-z]*")
#: Words joined as a tool's name joins them: by underscores, or in camelCase after a
#: lowercase word, each capital beginning a word ("saveNote"), not as a brand's name is
#: ("iPhone", "JavaScript", "macOS", "iPadOS").
_JOINED_WORDS = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]|(?:^|\.)[a-z]{2}[a-z0-9]*(?:[A-Z][a-z0-9]+)+$")
#: After two lowercase letters, a capital: a name called with its arguments straight after
#: it ("getURL(x)").
_CALLED_CAMEL = re.compile(r"(?:^|\.)[a-z]{2}[a-z0-9]*[A-Z]")
#: Words a sentence about the marker goes on with after it (``[TOOL_CALLS] is how ...``).
_ABOUT_MARKER = re.compile(r"(?:is|are|was|were|and|or|then|marks?|begins?|starts?|opens?"
                           r"|precedes?|comes?|means?|signals?|tells?|followed|token|marker)\b")
#: A call's name and Mistral's marker for its arguments, the JSON of which follows.
_NAMED_ARGS = re.compile(r"[\w.\-]{1,200}\[ARGS\][ \t]*")
#: How the text before a marker ends when the marker begins a line or follows a sentence or
#: the clause leading into the calls ("I'm going to remember this: [TOOL_CALLS]...").
LEAD_ENDS = ("\n", ".", "!", "?", ":")
#: A sentence going on, in small letters, on the line the calls end.
_SENTENCE_GOES_ON = re.compile(r"[ \t]*[a-z]")
#: The markers and tags that open a call, which a reply may end with, no call written.
_OPENING_TAGS = (MISTRAL_CALLS, "<tool_call>", "<|tool_call|>", "<|python_tag|>")
#: How text after a call's JSON begins when it is more calls or markup, not prose.
_MORE_MARKUP = ("[", "{", "<", "`", ",")
#: What shows the form of a call rather than makes one (``[TOOL_CALLS]name{...}``).
_PLACEHOLDER = "{...}"
#: How the text before a marker ends when the marker begins a line or follows calls.
_AFTER_CALLS = ("\n", "}", "]", ")", ">", "`")


def prose_after_calls(text: str, names: frozenset[str]) -> tuple[str, str]:
    """``text`` up to Mistral's last marker and the sentence after it, when it ends so
    (``...[TOOL_CALLS] I saved it.``), the marker beginning a line or straight after the
    calls, or up to the end of the JSON after that marker (a name and ``[ARGS]`` before it
    or not), beginning the reply, a line or a sentence, or after an emoji, and the words after
    it, whatever they begin with but more markup (``[TOOL_CALLS] [{...}]\nI saved it.``,
    ``Ok.\n[TOOL_CALLS]NAME[ARGS]{...}\n¡Listo!``, ``... ✅``): the model went on in prose
    after them; else ``text`` and ""."""
    last = ([-1, *marker_starts(text, MISTRAL_CALLS)])[-1]  # a marker in a call's JSON is text
    before, after = text[:last].rstrip(" \t"), text[last + len(MISTRAL_CALLS):]
    if last > 0 and follows_calls(before) and is_prose(after, names):
        return text[:last], after.strip()
    # "[TOOL_CALLS] [{...}]\nI saved your city.": the calls, then prose, the marker beginning
    # the reply, a line or a sentence ("Mistral writes [TOOL_CALLS] [...] first." shows it)
    if last >= 0 and (not before.strip() or before.endswith(LEAD_ENDS)
                      or unicodedata.category(before[-1:] or " ") == "So"):
        start = len(text) - len(after.lstrip())
        named = _NAMED_ARGS.match(text, start)  # "[TOOL_CALLS]NAME[ARGS]{...}"
        start = named.end() if named else start
        try:
            _, end = _DECODER.raw_decode(text, start) if text.startswith(("[", "{"), start) \
                else (None, start)
        except (ValueError, RecursionError):
            end = start
        said = text[end:].strip()
        goes_on = before.strip() and _SENTENCE_GOES_ON.match(text, end)  # "...: [...] then x"
        if end > start and said and not said.startswith(_MORE_MARKUP) and not goes_on \
                and not shown_as_example(text, last, end):  # "Here is an example:\n[TOOL_..."
            return text[:end], said
    return text, ""


def without_marker_after_calls(text: str) -> str:
    """``text`` without Mistral's marker that ends it with nothing after it, beginning a
    line or straight after calls (``...```[TOOL_CALLS]``, ``...</tool_call>[TOOL_CALLS]``):
    a call the model began and did not write, which is no reply; else ``text``."""
    stripped = text.rstrip()
    before = stripped.removesuffix(MISTRAL_CALLS).rstrip(" \t")
    if before != stripped.rstrip(" \t") and follows_calls(before):
        return before
    return text


def follows_calls(before: str) -> bool:
    """Whether ``before``, the text up to a marker, ends as calls or a line do (``</tool_call>``,
    a closing fence or span, a line break), not with the backtick that opens inline code
    (``Mistral writes `[TOOL_CALLS]...```), which quotes the markup as an example."""
    if not before.strip() or not before.endswith(_AFTER_CALLS):
        return False
    ahead = before.rstrip("`")
    opens_span = len(before) - len(ahead) in (1, 2) and (not ahead or ahead[-1].isspace()
                                                         or ahead[-1] in "(:'\"")
    return not opens_span


def marked_prose(content: str, names: frozenset[str]) -> str:
    """``content`` without Mistral's marker when that begins a reply which made no call: the
    model began a call and wrote something else. Nothing but markers is no reply (""); one
    sentence after it (``[TOOL_CALLS] Done.``, ``[TOOL_CALLS] ok, noted``,
    ``[TOOL_CALLS]macOS noted``), or one capitalised word or brand, a marker with nothing
    after it or not (``[TOOL_CALLS]Forget[TOOL_CALLS]``), is the reply; as is text that reads
    as no call (``[TOOL_CALLS]save(x)``, no offered tool and no value), shown without the
    marker. One the sentence goes on from (``[TOOL_CALLS] is how Mistral...``,
    ``[TOOL_CALLS] and then a list``), or that shows the form (``{...}``), names the marker.
    Markers ending a reply of prose after a sentence or on their own line are no reply
    either (``Hello.\n[TOOL_CALLS]`` is ``Hello.``)."""
    text = content.strip()
    if text.startswith(MISTRAL_CALLS) and not text.replace(MISTRAL_CALLS, "").strip():
        return ""
    after = text[len(MISTRAL_CALLS):].removesuffix(MISTRAL_CALLS).strip()
    if not text.startswith(MISTRAL_CALLS) or MISTRAL_CALLS in after \
            or _ABOUT_MARKER.match(after) or _PLACEHOLDER in after:
        return _without_trailing_markers(content)
    return after


def _without_trailing_markers(content: str) -> str:
    """``content`` without the markers that end it after a sentence, or on a line of their
    own (``Hello.\n[TOOL_CALLS]``, ``Sure.\n<tool_call>``): a call the model began and did
    not write, no reply. One
    a sentence or a colon leads into (``Mistral's marker is [TOOL_CALLS]``, ``It writes:\n
    [TOOL_CALLS]``) is text about the marker."""
    before = content.rstrip()
    while marker := next((m for m in _OPENING_TAGS if before.endswith(m)), None):
        before = before.removesuffix(marker).rstrip()
    marked = content[len(before):]
    if not before or not marked.strip() or not (before.endswith((".", "!", "?"))
                                                or ("\n" in marked[:len(marked) - len(
                                                    marked.lstrip())]
                                                    and not before.endswith((":", ",")))):
        return content
    return before


def prose_word(word: str, names: frozenset[str], *, mistral: bool = True) -> bool:
    """Whether ``word``, alone after a call marker, is prose: one ending a sentence
    (``Done.``) or, after Mistral's marker (``mistral``), a capitalised one (``Done``, not
    ``Forget`` beside a tool ``forget``), that begins no offered name, with or without a
    namespace (``functions.`` does)."""
    return (word.endswith(".") or (mistral and _CAPITALISED.fullmatch(word) is not None
                                   and not _near(word, names))) and not _begins_name(word, names)


def _begins_name(word: str, names: frozenset[str]) -> bool:
    """Whether ``word`` begins an offered name, with or without a namespace."""
    return any(f"{space}{name}".startswith(word) for name in names for space in ("", *NAMESPACES))


def is_prose(segment: str, names: frozenset[str]) -> bool:
    """Whether the text after a marker is a sentence, not a call written wrong: words that
    go on past a first one not written as a tool's name (``I saved it.``, ``Noted (saved).``,
    not ``save_note (x)``), or one word ending a sentence (``Done.``) or not written as a
    tool's name, nor beginning nor near an offered one (``ok``, not ``get_weather`` nor
    ``Forget``), with no arguments anywhere in it; a bracket or quote straight after the word
    (``save("x")``) begins its arguments."""
    written = MISTRAL_WRITTEN.match(segment)
    if not written or "{" in segment or MISTRAL_ARGS in segment:
        return False
    name, after = written.group(1), written.group(2)
    if not after.strip():  # "Done.", or "ok", a word not written as a tool's name is
        return prose_word(name, names) or not (name_shaped(name, names) or _near(name, names)
                                                or _begins_name(name, names))
    return not name_shaped(name, names) and not after.startswith(("[", "(", '"'))


def name_shaped(word: str, names: frozenset[str], *, called: bool = False) -> bool:
    """Whether ``word`` is written as a tool's name is: words joined by underscores or in
    camelCase (``save_note``, ``saveNote``; ``getURL`` only ``called``), or near an offered
    name when lowercase (``send_mesage``) or ``called``, a bracket or quote straight after
    it (``Forget("x")``). A brand before prose (``macOS noted``) is no name.
    After a marker it begins a call the model meant, which runs to tell it the name is
    wrong, not prose shown and never run. A capitalised word with a space after it begins a
    sentence (``Forget it (no need)``, ``JavaScript is noted``) whatever tool it is near."""
    bare = offered_name(word, names)
    return bare in names or _JOINED_WORDS.search(word) is not None \
        or (called and _CALLED_CAMEL.search(word) is not None) \
        or ((called or word[:1].islower()) and _near(bare, names))


def _near(word: str, names: frozenset[str]) -> bool:
    """Whether ``word``, in any case, is near an offered name (``Forget``, ``forgt``)."""
    return bool(get_close_matches(word.lower(), names, n=1, cutoff=0.85))
