"""Calls in a fenced block (```json, ```tool_calls or unlabelled), and what wrapped the calls
taken out of a reply, which is no reply (agent/text_tool_calls.py)."""

from __future__ import annotations

import re

from tiermem.agent.llm import ToolCall
from tiermem.agent.text_call_objects import (
    FENCE,
    TextToolCalls,
    calls_in,
    cut_call,
    python_calls_in,
    spliced,
)
from tiermem.agent.text_call_pythonic import literal_value

__all__ = ["fenced_calls", "shown_as_example", "without_call_wrapping"]

#: A code fence with nothing in it: its label, if any, and blank lines.
_EMPTY_FENCE = re.compile(r"```[\w+-]{0,20}\s*```")
_EMPTY_SPANS = re.compile(r"``(?:\s*``)*")
#: Call tags with nothing in them, which calls read in another form inside them leave.
_EMPTY_TAGS = re.compile(r"<tool_call>\s*</tool_call>|<\|tool_call\|>\s*<\|/tool_call\|>")
#: Markers that begin calls, left at the end of the text when the calls after them were
#: read in another form (a fenced block after ``[TOOL_CALLS]``).
_CALL_MARKERS = ("[TOOL_CALLS]", "<|python_tag|>", "<|python_start|>", "<tool_call>",
                 "<|tool_call|>")
#: Mistral's marker at the start of a line, before the prose that follows it there.
_LEADING_MARKER = re.compile(r"^[ \t]*\[TOOL_CALLS\][ \t]*(?=\S)", re.MULTILINE)

#: A call or its format, spoken of in general ("a call", "the tool call", "the JSON"), not
#: the model's own update ("my memory update", "it").
_FORM = (r"(?:(?:a|an|the|one|such\s+a)\s+)?(?:\w+\s+)?(?:calls?|format|syntax|json|schema"
         r"|structure)")
#: "e.g." or "i.e.", written with their dots or some left out ("e.g", "eg.", "i.e").
_ABBREVIATED = r"e\.?g\b\.?|i\.e\b\.?"
#: Words that present a fenced call as an example of the form, not one the reply makes (in
#: English, or Spanish, German or French: "Ejemplo:", "Beispiel:", "Exemple :").
_EXAMPLE = re.compile(r"\b(?:examples?|ejemplos?|beispiele?|exemples?|for instance|" + _ABBREVIATED
                      + r"|an? sample|sample (?:call|output|code)"
                      r"|would look like|looks like this|(?:what|how)\s+" + _FORM + r"\s+looks?"
                      r"|(?:I|you|we)(?:['\u2019]d| would| could)"
                      r"\s+(?:\w+\s+)?(?:write|call))(?!\w)", re.IGNORECASE)
#: Words that open a sentence as an example, whatever its clauses after them say ("For
#: instance, to remember a name:", "To give you an example, here's one:", "For ex:").
_EXAMPLE_OPENING = re.compile(r"\s*(?:for (?:example|instance)|for ex\.?(?!-)|as an example"
                              r"|por ejemplo|zum beispiel|par exemple"
                              r"|to give (?:you )?an example|" + _ABBREVIATED + r")(?!\w)",
                              re.IGNORECASE)
#: A sentence after the fence that says the fence is an example ("That is just an example.",
#: "The example above ...", "(example)"); not one that merely names one ("I saved your example").
_SAID_EXAMPLE = re.compile(r"\W*(?:(?:this|that|it|the above|above)"
                           r"(?:['\u2019]s|\s+(?:is|was|would be))\s+(?:just |only |merely )?"
                           r"(?:an? |one )?(?:\w+ )?(?:example|sample)"
                           r"|the (?:example|sample) above|(?:example|sample)(?: only)?\W*$)",
                           re.IGNORECASE)
#: The sentence going on, in small letters or after a comma, on the line a fence closes.
_SENTENCE_GOES_ON = re.compile(r"[ \t]*(?:[a-z]|[,;])")
#: Words that answer the user, a whole sentence before a fence on its line ("Sure ```json",
#: "Thanks for sharing ```json"), after which the fence is a call made, not a form quoted.
_ACKNOWLEDGING = re.compile(r"(?:sure|ok(?:ay)?|got it|noted|understood|al(?:l )?right|absolutely"
                            r"|of course|certainly|cool|great|nice|perfect|done|yes|yep|no problem"
                            r"|will do|sounds good|makes sense|I see|thanks?|thank you|here it is"
                            r"|here you go|here['\u2019]s (?:the|my) call|hi|hello|hey|welcome)\b",
                            re.IGNORECASE)
#: Where a sentence ends, or a paragraph or another fence does.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n[ \t]*\n|```")
#: Where a paragraph or another fence ends.
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n|```")
#: Where a sentence ends, not after "e.g.", "i.e." or "for ex." ("E.g. to keep your city:" is one).
_STOP = re.compile(r"(?<=[.!?])(?<!\b[Ee]\.[Gg]\.)(?<!\b[Ii]\.[Ee]\.)(?<!\b[Ee][Gg]\.)"
                   r"(?<!\b[Ff]or [Ee]x\.)\s")
#: Where a clause of a sentence ends.
_CLAUSE_END = re.compile(r"[,;(\u2014\u2013]|\s-\s|\bso\b|\band\b")
#: The model saying it stores something now ("I'll note it", "Let me save", "Saving it:"),
#: or has ("I've noted it"), which an example of the form is not ("an example of saving").
_STORING = re.compile(r"\b(?:(?:I['\u2019]ll|I will|I['\u2019]m|I am|let me|now)\s+(?:\w+\s+)?"
                      r"(?:save|note|store|record|remember|add|update|saving|noting|storing"
                      r"|recording|adding|updating)|(?:is|are|being)\s+(?:saved|noted|stored|recorded)"
                      r"|I(?:['\u2019]ve| have)?\s+(?:just\s+)?(?:saved|noted|stored|recorded))\b"
                      r"|(?:^|[,:\u2014\u2013-])\s*(?:saving|noting|storing|recording|updating|adding"
                      r"|remembering)\b", re.IGNORECASE)


def shown_as_example(content: str, start: int, end: int) -> bool:
    """Whether the fence at ``content[start:end]`` is shown as an example: the last clause
    leading into it says so ("For example:", "Here is an example call:", not "This is an
    example of a good habit, so I'll note it:"), or the first sentence after it says the
    fence is one ("That is an example.", not "It's a good example, so I've noted it."), in a
    sentence that does not say the model stores something, nor, leading in, follows one that
    does in its paragraph ("Let me save that. For example:"). Models that mean to call lead
    in with what they do."""
    paragraph = [p for p in _PARAGRAPH_END.split(content[:start]) if p.strip()][-1:]
    lead = [s for s in _STOP.split(paragraph[0]) if s.strip()][-2:] if paragraph else []
    follow = _SENTENCE_END.split(content[end:].lstrip(), maxsplit=1)[0]
    led = bool(lead) and bool(_EXAMPLE.search(_CLAUSE_END.split(lead[-1])[-1])
                              or _EXAMPLE_OPENING.match(lead[-1])) \
        and not any(_STORING.search(text) for text in lead)
    return led or bool(_SAID_EXAMPLE.match(follow) and not _STORING.search(follow))


def _quoted_inline(content: str, match: re.Match[str]) -> bool:
    """Whether the fence ``match`` found is inside a sentence that goes on after it: written
    on one line ("```json {...}``` is the format", "Use ```json {...}``` to save"), or opened
    mid-line and closed with the sentence going on ("You could call it like this ```json
    <lines> ``` to save a fact."), the sentence not saying the model stores something (``Your
    city ```json <lines> ``` is saved now.``), the line not ending a sentence or clause before
    the fence, nor in words that answer or greet the user ("Noted, ```json", "Got it! ```json",
    "Sure ```json <lines> ``` done.", "Hi Ana ```json"): a form quoted in prose, not a call;
    "```json {...}``` Done." ends its call."""
    if not match.group(0).endswith("```") \
            or _SENTENCE_GOES_ON.match(content, match.end()) is None:
        return False
    if "\n" not in content[match.start():match.start(1)]:
        return True
    line = content[content.rfind("\n", 0, match.start()) + 1:match.start()].rstrip()
    said = _STOP.split(line)[-1]  # the sentence the fence is in, as far as it goes
    follow = _SENTENCE_END.split(content[match.end():], maxsplit=1)[0]
    return bool(line) and not line.endswith((".", "!", "?", ",", ":", ";")) \
        and not any(_ACKNOWLEDGING.match(t.strip()) for t in (said, said.split(",")[-1])) \
        and not any(_STORING.search(t) for t in (line, said, follow))


def without_call_wrapping(rest: str, content: str) -> str:
    """``rest`` without what wrapped the calls taken out of ``content``: a code fence or call
    tags left empty (```` ```xml<tool_call>...</tool_call>``` ````) and a marker the calls
    followed (``[TOOL_CALLS] ```json [...]``` ``), none of which is a reply. A fence, tags or
    a marker the content itself holds so (an empty fence in prose, a marker a sentence ends with)
    is the model's text and stays."""
    already_empty = {m.group(0) for m in _EMPTY_FENCE.finditer(content)}
    fences = [m.start() for m in re.finditer("```", rest)]
    kept, position = [], 0
    for opening, closing in zip(fences[::2], fences[1::2], strict=False):
        fence = rest[opening:closing + 3]  # fences pair up in order, as markdown pairs them
        if _EMPTY_FENCE.fullmatch(fence) and fence not in already_empty:
            kept.append(rest[position:opening])
            position = closing + 3
    rest = ("".join(kept) + rest[position:]).strip()
    # Tags left empty: "<tool_call><function=A>{...}</function><function=B>{...}</function>
    # </tool_call>", its calls read as Llama 3.2's.
    already_empty |= {m.group(0) for m in _EMPTY_TAGS.finditer(content)}
    rest = _EMPTY_TAGS.sub(lambda m: m.group(0) if m.group(0) in already_empty else "", rest)
    rest = rest.strip()
    if _EMPTY_SPANS.fullmatch(rest):  # the inline code spans the calls were all of
        return ""
    # Only a marker the content has before a fenced call: else it is the model's own text.
    markers = tuple(m for m in _CALL_MARKERS if re.search(re.escape(m) + r"\s*```", content))
    end = len(rest)
    while marker := next((m for m in markers if rest.endswith(m, 0, end)), None):
        end -= len(marker)
        while end and rest[end - 1].isspace():
            end -= 1
    # "```json [...]```\n[TOOL_CALLS] Done.": Mistral's marker that begins a line of prose
    # after calls, where the model went on with text, is markup, no part of the reply.
    return _LEADING_MARKER.sub("", rest[:end])


def fenced_calls(content: str, names: frozenset[str], cut: bool,
                 after_prose: bool) -> TextToolCalls:
    calls: list[ToolCall] = []
    kept: list[str] = []
    position = 0
    for match in FENCE.finditer(content):
        # An object holding the calls, beside prose, quotes a response ("the API returns:");
        # a marker the fence follows ("Saving. [TOOL_CALLS]```json") says it is calls.
        before = content[:match.start()].rstrip()
        marked = before.endswith(_CALL_MARKERS)
        held = not content[match.end():].strip() \
            and (marked or not (after_prose or before.strip()))
        body = match.group(1)
        if cut and not match.group(0).endswith("```"):  # cut in the closing fence: "}\n``"
            body = body.rstrip().removesuffix("``").removesuffix("`")
        found = calls_in(body, names, marked=False, held=held)
        if found is None and match.group(0).endswith("```"):
            # Small models write JSON with Python's habits: a trailing comma, single
            # quotes, True or None. Read as a literal, never run; offered names only.
            found = python_calls_in(literal_value(match.group(1)), names, marked=False,
                                    held=held)
        if found is None and cut and not match.group(0).endswith("```"):  # cut inside it
            found = cut_call(match.group(1), names, marked=False)
        if not marked and (shown_as_example(content, match.start(), match.end())
                           or _quoted_inline(content, match)):
            found = None  # "For example:\n```json\n{...}\n```" shows the form
        if found is not None:
            kept.append(content[position:match.start()])
            calls += found
            position = match.end()
    kept.append(content[position:])
    return TextToolCalls(calls, spliced(kept)) if calls else TextToolCalls(rest=content)
