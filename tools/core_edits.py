"""What ``core_memory_replace`` answers when the text it edits is no longer in core.

A small model reads core several turns late, and echoes its own earlier calls in a later
step or turn: the fact it names may have been evicted, retired, or already edited by that
very call. Each gets an answer that says what happened to it, so the model neither copies
the text again ("exactly as core shows it" cannot help) nor tells the user the edit failed.

Only text the privacy policy shows is matched, in core and out of it: a withheld fact
holding the text is never confirmed (the model could probe hidden text by guessing).
"""

from __future__ import annotations

from tiermem.memory import HierarchicalMemory
from tiermem.memory.types import Fact
from tiermem.memory.validation import single_line
from tiermem.tools.search_results import iso

#: How a core_memory_replace result names the fact it edited (tools/memory_tools.py).
EDITED = "core edited: "


def done_before(memory: HierarchicalMemory, results: list[str], old: str, new: str,
                request: str = "") -> str | None:
    """The answer to ``core_memory_replace(old, new)`` made again, when ``results`` (those
    the same call got before, as the model's window shows them) name a fact that core
    still shows as that call left it; None otherwise.

    Run again, the call would fail (``old`` is gone from core, and "copy the exact text"
    would send the model looking for it) or, when ``new`` holds ``old``, edit the fact a
    second time ("green tea" becoming "green green tea"). The fact must be the one the
    call edited: core holds one fact per text, and the result quoted that text whole. A
    fact edited since, forgotten, moved out of core or withheld by the privacy policy reads
    otherwise, and another fact shown holding ``old`` may be the one the call means: the
    call then runs as any other."""
    if not results or not new.strip():
        return None
    shown = memory.core_shown(request)
    edited = [f for f, text in shown if text == f.text and new in f.text and any(
        _names(result, f.text) for result in results)]
    if len(edited) != 1 or any(old in text for f, text in shown if f.id != edited[0].id):
        return None
    return (f"Already done: an earlier call replaced {old!r} with {new!r}, and core's fact "
            f"reads {edited[0].text!r}; nothing was changed")


def _names(result: str, text: str) -> bool:
    """Whether ``result`` says the edit left a fact reading ``text``: the whole of it, up to
    the next note or the core usage after the last."""
    said = EDITED + single_line(text)
    return said + "; " in result or said + " (" in result


def left_core(memory: HierarchicalMemory, old: str, request: str = "") -> Fact | None:
    """The fact that held ``old`` and has left core since (the one that left last), when
    no core fact shown holds it; None when one does, or no fact shown ever held it."""
    if any(old in text for _, text in memory.core_shown(request)):
        return None
    facts = [f for f in memory.facts() if f.tier != "core" and old in f.text]
    shown = memory.texts_shown([f.text for f in facts], request)
    gone = [f for f, text in zip(facts, shown, strict=True) if text == f.text]
    if not gone:
        return None
    return max(gone, key=lambda f: f.evicted_at or 0.0)


def why_left(memory: HierarchicalMemory, fact: Fact) -> str:
    when = iso(fact.evicted_at)
    if memory.lifecycle.superseded(fact):
        return f"was retired as no longer true ({when})"
    return (f"left core for archival (evicted {when}), where archival_memory_search still "
            "finds it")


def left_core_error(memory: HierarchicalMemory, fact: Fact, old: str, new: str) -> str:
    """Why no core fact holds ``old`` now that ``fact``, which held it, has left core, and
    what to call instead."""
    then = ("nothing is left in core to retire" if not new.strip() else
            "to record the change, call core_memory_append with the new fact")
    return f"no core fact contains {old!r}: the fact holding it {why_left(memory, fact)}; {then}"


def already_retired(memory: HierarchicalMemory, fact: Fact, old: str) -> str | None:
    """The answer to retiring ``old`` again when ``fact``, which held it, was retired: what
    the call asks for is so already (a model echoing its call), so it is no error; None
    when the fact only left core for lack of room and is still current."""
    if not memory.lifecycle.superseded(fact):
        return None
    return (f"Already retired: the fact holding {old!r} {why_left(memory, fact)} and no "
            "core fact contains it; nothing was changed")
