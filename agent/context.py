"""The context window: what the model sees each step, and compaction when it fills.

Layout, most stable first so providers can cache the prefix:

1. one system message: the system prompt (fixed); core memory, escaped inside
   a delimited block and marked as data; the running summary of messages that
   left the window; last, a line of memory statistics (and, once, the
   memory-pressure alert);
2. the in-context messages (the live conversation), so that the last message
   of every prompt is the user's, or a tool result within a turn. A trailing
   statistics note was echoed by weak models as their reply.

A server reuses the longest unchanged prefix of the previous prompt, so a
change in the system message makes it re-read the whole conversation. The
statistics are therefore coarse (agent/system_message.py: exact below 10, then
"at least" the 1-2-5 step below the count), and change a few times per tenfold
growth instead of on every turn: over a 40-turn conversation that never touches
core, the system message took 8 distinct values instead of 40
(tests/test_agent_context.py::test_the_system_message_changes_rarely). Core
and the summary change only when memory does.

The prompt's share of the window is its ``budget``: the window less the
reply budget (``reserve``, the ``max_tokens`` sent with each request), so a
prompt never leaves the model without room to answer. Tokens are counted with
one tokenizer, the model's own encoding, for both the trigger and the goal. At
75% of the budget the agent gets one memory-pressure alert; past 100% the
oldest messages are folded into the summary at a turn boundary (a tool call
never leaves without its result). Compaction must shrink the count; if it
cannot, ``ContextOverflowError`` ends the turn instead of looping. The current
turn is never summarised: when it alone is too long, the arguments of its tool calls,
then its tool results, share what the window leaves them (``make_room``), trimmed again
from their full text, and the turn ends only when even that cannot fit, with advice
naming what is too long.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tiermem.agent.system_message import SYSTEM_PROMPT, escape_data, memory_statistics, render_core
from tiermem.agent.trimming import shared_results
from tiermem.agent.turn_sharing import share_calls, share_results, turn_results
from tiermem.memory import HierarchicalMemory
from tiermem.memory.errors import TiermemError
from tiermem.memory.text.tokenizer import TokenCounter, get_encoding

PRESSURE_AT = 0.75
COMPACT_TO = 0.5
SUMMARY_SHARE = 0.15
MESSAGE_OVERHEAD = 4
#: What the window shows in place of a message forgotten on request.
FORGOTTEN = "[forgotten on request]"



#: What to do when a prompt cannot fit the window, in every overflow message.
OVERFLOW_ADVICE = ("use a model with a larger window, lower --core-limit or TIERMEM_MAX_TOKENS, "
                   "or send a shorter message")
#: The last advice when the current turn's tool results are what cannot fit.
ASK_FOR_LESS = "ask for less in one message"


class ContextOverflowError(TiermemError):
    """The context cannot be brought under the model's window.

    ``needed`` and ``budget`` (tokens, when known) let a command other than chat
    say what its own options would change; ``advice`` is the message's last part.
    """

    def __init__(self, detail: str, needed: int | None = None, budget: int | None = None,
                 advice: str | None = OVERFLOW_ADVICE) -> None:
        super().__init__(f"{detail}; {advice}" if advice else detail)
        self.detail, self.needed, self.budget, self.advice = detail, needed, budget, advice

    def __reduce__(self) -> tuple[Any, ...]:
        # By its parts: rebuilt from its message alone, the advice would be added twice.
        return (type(self), (self.detail, self.needed, self.budget, self.advice))


@dataclass
class ContextWindow:
    """The in-context messages and running summary of one agent, with their token budget.

    ``messages`` changes only by ``append``; anything else assigns a new list,
    because the token count is kept as a running total over the list.
    ``reserve`` is the reply budget kept free in the window.
    """

    window: int
    counter: TokenCounter
    reserve: int = 0
    #: Whether core counts against the window. A client without a window of its own (the
    #: offline policy) reads core from the prompt, but core's size is no reason to refuse it.
    count_core: bool = True
    messages: list[dict[str, Any]] = field(default_factory=list)
    message_ids: list[int] = field(default_factory=list)
    summary: str = ""
    pressure_alerted: bool = False
    #: The full text of the current turn's tool results that the window shows trimmed, by
    #: message id: what ``make_room`` trims them again from.
    full_results: dict[int, str] = field(default_factory=dict)
    #: The current turn's assistant messages whose calls the window shows trimmed, as
    #: stored, by message id: what ``make_room`` trims their arguments again from.
    full_calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    # The token count of the in-context messages, kept as a running total: the
    # window only ever appends to its list of messages (compaction and loading
    # replace the list), and messages are never edited once in it. Re-counting
    # all of them on every model call cost about 3 ms at 500 messages.
    _counted: tuple[list[dict[str, Any]], int, int] | None = field(default=None, repr=False)
    _tools_counted: tuple[list[dict[str, Any]], int] | None = field(default=None, repr=False)

    def remember(self, message: dict[str, Any], shown: dict[str, Any], message_id: int) -> None:
        """Append ``shown``, the window's copy of ``message``. A user message begins a turn;
        a tool result or call shown trimmed keeps its full text until then."""
        if message.get("role") == "user":
            self.full_results, self.full_calls = {}, {}
        elif message.get("role") == "tool" and shown is not message:
            self.full_results[message_id] = str(message.get("content") or "")
        elif message.get("tool_calls") and shown is not message:
            self.full_calls[message_id] = message
        self.messages.append(shown)
        self.message_ids.append(message_id)

    def blank(self, message_ids: set[int]) -> int:
        """Show forgotten messages as a placeholder (their place stays, so tool calls keep
        their results); returns how many were in the window."""
        blanked = 0
        messages = list(self.messages)
        for i, message_id in enumerate(self.message_ids):
            if message_id in message_ids:
                self.full_results.pop(message_id, None)
                self.full_calls.pop(message_id, None)
                message = {**messages[i], "content": FORGOTTEN}
                if message.get("tool_calls"):
                    message["tool_calls"] = [{**c, "function": {**c["function"],
                                                                "arguments": "{}"}}
                                             for c in message["tool_calls"]]
                messages[i] = message
                blanked += 1
        if blanked:
            self.messages = messages  # a new list: the running token count starts again
        return blanked

    @property
    def budget(self) -> int:
        """The most tokens a prompt may have: the window less the reply budget.

        At least one token is always left for the reply.
        """
        return self.window - max(self.reserve, 1)

    def fits(self, tokens: int) -> bool:
        return tokens <= self.budget

    def fixed_tokens(self, tools: list[dict[str, Any]]) -> int:
        """What every prompt costs whatever memory holds: the instructions, as the one
        system message ``build`` sends, and the tool schemas. Core, the summary, the
        statistics line and the messages all come on top."""
        return self.count_message({"content": SYSTEM_PROMPT}) + self._tool_tokens(tools)

    def overflow_advice(self, memory: HierarchicalMemory, needed: int,
                        less: str = "send a shorter message") -> str:
        """What would make ``needed`` tokens fit; a lower --core-limit only when emptying
        core would (with a window smaller than the instructions and tools, it would not).
        ``less`` is what the user could ask for instead."""
        core = self.counter.count(render_core(memory)) if self.count_core else 0
        if needed - core <= self.budget:
            return ("use a model with a larger window, lower --core-limit or TIERMEM_MAX_TOKENS, "
                    f"or {less}")
        return (f"use a model with a larger window, lower TIERMEM_MAX_TOKENS, or {less} (a "
                f"smaller core would not do: without core's {core} tokens the context still "
                f"needs {needed - core})")

    def describe_limit(self) -> str:
        """The window and its reply budget, for error messages."""
        if self.reserve <= 0:
            return f"the model's window is {self.window}"
        return (f"the model's window is {self.window} tokens, {self.reserve} of them kept for "
                f"the reply (max_tokens), leaving {self.budget}")

    def count_message(self, message: dict[str, Any]) -> int:
        tokens = MESSAGE_OVERHEAD + self.counter.count(message.get("content") or "")
        if message.get("tool_calls"):
            tokens += self.counter.count(json.dumps(message["tool_calls"]))
        return tokens

    def _in_context_tokens(self) -> int:
        counted = self._counted
        if counted is None or counted[0] is not self.messages or counted[1] > len(self.messages):
            counted = (self.messages, 0, 0)
        messages, done, total = counted
        total += sum(self.count_message(m) for m in messages[done:])
        self._counted = (messages, len(messages), total)
        return total

    def _tool_tokens(self, tools: list[dict[str, Any]]) -> int:
        # The schemas are the same list object for a whole turn.
        if self._tools_counted is None or self._tools_counted[0] is not tools:
            self._tools_counted = (tools, self.counter.count(json.dumps(tools)))
        return self._tools_counted[1]

    def build(
        self, memory: HierarchicalMemory, tools: list[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], int]:
        """The messages to send and their token count (tool schemas included)."""
        summary = (f"\n\n<summary>\n{escape_data(self.summary)}\n</summary>" if self.summary
                   else "")
        stats = "\n\n" + memory_statistics(memory)
        system = SYSTEM_PROMPT + "\n\n" + render_core(memory, self.current_request()) + summary \
            + stats
        counted = system if self.count_core else SYSTEM_PROMPT + summary + stats
        fixed = self._in_context_tokens() + self._tool_tokens(tools)
        total = fixed + self.count_message({"content": counted})
        if total >= PRESSURE_AT * self.budget and not self.pressure_alerted:
            self.pressure_alerted = True
            alert = (
                f" Memory pressure: the context is {100 * total / self.budget:.0f}% full. "
                "Save anything important to core or archival memory now; older messages will "
                "soon be summarised out of view (they stay searchable in recall)."
            )
            system, counted = system + alert, counted + alert
            total = fixed + self.count_message({"content": counted})
        return [{"role": "system", "content": system}, *self.messages], total

    def current_request(self) -> str:
        """The newest user message in the window: what the model is answering now."""
        for message in reversed(self.messages):
            if message["role"] == "user":
                return str(message.get("content") or "")
        return ""

    def turn_starts(self) -> list[int]:
        """Indexes where a user message begins a turn: the only safe cut points."""
        return [i for i, m in enumerate(self.messages) if m["role"] == "user"]

    def compact(
        self,
        memory: HierarchicalMemory,
        tools: list[dict[str, Any]],
        summarize: Callable[[str, list[dict[str, Any]]], str],
        keep_from: int,
    ) -> int:
        """Fold the oldest turns into the summary until under COMPACT_TO of the budget.

        ``keep_from`` is the index of the current turn's first message, which
        never leaves. Returns the new token count. Raises ContextOverflowError, with the
        window as it was, when nothing older is left, when folding does not shrink the
        count, or when the prompt still does not fit (``make_room`` goes on from there).
        """
        _, before = self.build(memory, tools)
        if not self._foldable(keep_from):
            raise self._overflow(memory, before, NOTHING_OLDER)
        old = (self.messages, self.message_ids, self.summary)
        after = self._fold(memory, tools, summarize, keep_from, before)
        if after is None:
            raise ContextOverflowError(
                f"summarising did not shrink the context from its {before} tokens; "
                "the turn stops here instead of looping", advice=None)
        if not self.fits(after):
            self.messages, self.message_ids, self.summary = old
            raise self._overflow(memory, after, ALL_SUMMARISED)
        return after

    def make_room(
        self,
        memory: HierarchicalMemory,
        tools: list[dict[str, Any]],
        summarize: Callable[[str, list[dict[str, Any]]], str],
        keep_from: int,
    ) -> tuple[list[dict[str, Any]], int, bool]:
        """The prompt to send (``build``), its token count, and whether older turns were
        summarised to fit it in the budget.

        A prompt over the budget first has its oldest turns folded into the summary (as
        ``compact``). When the current turn (from ``keep_from``) alone is still too long,
        the arguments of its tool calls are trimmed again from the calls as stored
        (``full_calls``; recall keeps them whole), down to the start of each (trimming.py
        ``shared_calls``); then its tool results share what is left: the largest are
        trimmed again from their full text (``full_results``), down to the ids and the
        start of the text of every hit (``shared_results``). Raises ContextOverflowError,
        with the window as it was, when even that cannot fit; its advice names what is too
        long: the results, or the rest (the user's message, core).
        """
        alerted = self.pressure_alerted
        messages, tokens = self.build(memory, tools)
        if self.fits(tokens):
            return messages, tokens, False
        old = (self.messages, self.message_ids, self.summary, alerted)
        compacted, older = False, NOTHING_OLDER
        if self._foldable(keep_from):
            after = self._fold(memory, tools, summarize, keep_from, tokens)
            older = NOT_SMALLER if after is None else ALL_SUMMARISED
            if after is not None:
                compacted, keep_from = True, self.turn_starts()[-1]
                alerted = self.pressure_alerted  # the alert may be given again
                messages, tokens = self.build(memory, tools)
        if not self.fits(tokens) and share_calls(self, keep_from, tokens - self.budget):
            self.pressure_alerted = alerted
            messages, tokens = self.build(memory, tools)
        for _ in range(3):  # a result cut from the end may count a token or two over
            if self.fits(tokens) or not share_results(self, keep_from, tokens - self.budget):
                break
            self.pressure_alerted = alerted  # counted as sent: with the alert if it is due
            messages, tokens = self.build(memory, tools)
        if self.fits(tokens):
            return messages, tokens, compacted
        error = self._turn_overflow(memory, tokens, older, keep_from)
        self.messages, self.message_ids, self.summary, self.pressure_alerted = old
        raise error

    def _foldable(self, keep_from: int) -> bool:
        return any(0 < i <= keep_from for i in self.turn_starts())

    def _fold(
        self,
        memory: HierarchicalMemory,
        tools: list[dict[str, Any]],
        summarize: Callable[[str, list[dict[str, Any]]], str],
        keep_from: int,
        before: int,
    ) -> int | None:
        """Fold the oldest turns before ``keep_from`` into the summary, aiming at COMPACT_TO
        of the budget; the new token count, or None (the window as it was) when folding
        did not make the ``before`` tokens fewer."""
        cuts = [i for i in self.turn_starts() if 0 < i <= keep_from]
        goal = COMPACT_TO * self.budget
        cut = cuts[-1]
        # What each cut drops, counted on from the cut before it: counting from the start
        # for every cut made a compaction of a few hundred messages take 80 ms.
        dropped = counted = 0
        for candidate in cuts:
            dropped += sum(self.count_message(m) for m in self.messages[counted:candidate])
            counted = candidate
            if before - dropped <= goal:
                cut = candidate
                break
        folded = self.messages[:cut]
        summary = summarize(self.summary, folded)
        budget = int(SUMMARY_SHARE * self.budget)
        encoding = get_encoding(self.counter.encoding)
        tokens = encoding.encode(summary, disallowed_special=())
        if len(tokens) > budget:
            # Keep the newest part: the summary grows at its end.
            summary = encoding.decode(tokens[-budget:])
        old = (self.messages, self.message_ids, self.summary)
        self.messages, self.message_ids = self.messages[cut:], self.message_ids[cut:]
        self.summary = summary
        _, after = self.build(memory, tools)
        if after >= before:
            self.messages, self.message_ids, self.summary = old
            return None
        self.pressure_alerted = False
        return after

    def _turn_overflow(self, memory: HierarchicalMemory, tokens: int, older: str,
                       keep_from: int) -> ContextOverflowError:
        """Why the current turn cannot fit: its tool results, when the rest would fit
        without them, else the rest (the user's message, core), as before any result."""
        _, results = turn_results(self, keep_from)
        shown = sum(self.counter.count(text) for text, _ in results)
        if not results or tokens - shown > self.budget:
            return self._overflow(memory, tokens, older)
        _, least = shared_results(results, -1, self.counter)
        needed = tokens - shown + least
        return self._overflow(
            memory, needed, older,
            f"; the {len(results)} tool results of this turn take {least} of them even with "
            f"every long text in them cut to its start", ASK_FOR_LESS)

    def _overflow(self, memory: HierarchicalMemory, needed: int, older: str, why: str = "",
                  less: str = "send a shorter message") -> ContextOverflowError:
        needs = f"the context needs {needed} tokens but {self.describe_limit()}"
        return ContextOverflowError(older.format(needs=needs) + why, needed, self.budget,
                                    self.overflow_advice(memory, needed, less))


#: How an overflow message says what became of the turns before the current one.
NOTHING_OLDER = "{needs}, and nothing older than the current turn is left to summarise"
ALL_SUMMARISED = "even with everything older summarised, {needs}"
NOT_SMALLER = "{needs}, and summarising what is older would not make it smaller"
