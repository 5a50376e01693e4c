"""The agent: one turn of model calls and memory tool calls, committed as one transaction.

What a turn returns is in agent/turn_result.py, how its messages are made storable and
read back from recall in agent/stored_messages.py, and how the context window is kept
between turns (and follows erasures) in agent/stored_context.py.
"""

from __future__ import annotations

import contextlib
from typing import Any

from tiermem.agent.context import ContextWindow
from tiermem.agent.earlier_calls import earlier_results
from tiermem.agent.earlier_turns import extractive_summary
from tiermem.agent.interrupts import turn_interrupts
from tiermem.agent.llm import Completion, LLMClient, ToolCall
from tiermem.agent.offline import MASKED_KEY, OfflinePolicy
from tiermem.agent.repeated_calls import RepeatedCalls, once_each
from tiermem.agent.stored_context import StoredContext, Summarizer, model_summary
from tiermem.agent.stored_messages import (
    cut_at_length,
    cut_call_result,
    lost_tool_calls,
    repeats,
    said_once,
    sent_text,
    stopped_by_filter,
    storable,
    without_oversized_arguments,
)
from tiermem.agent.trimming import shown_in_window
from tiermem.agent.turn_result import TurnResult, add_notice, note_failed_beside_reply
from tiermem.memory import HierarchicalMemory
from tiermem.memory.text.tokenizer import TokenCounter
from tiermem.memory.tiers.recall import NewMessage
from tiermem.memory.validation import MAX_TEXT_CHARS, clean_text
from tiermem.tools.dispatch import Toolbox, ToolResult
from tiermem.tools.memory_tools import ToolContext, memory_toolbox
from tiermem.tools.safe_text import clipped, safe_text, storable_calls

DEFAULT_MAX_STEPS = 10
MAX_MALFORMED_STEPS = 3


class Agent:
    """An LLM agent whose memory is a ``HierarchicalMemory``."""

    def __init__(
        self,
        memory: HierarchicalMemory,
        llm: LLMClient,
        *,
        max_steps: int = DEFAULT_MAX_STEPS,
        toolbox: Toolbox | None = None,
        summarizer: Summarizer | None = None,
    ) -> None:
        _check_arguments(memory, llm, max_steps)
        self.memory = memory
        self.llm = llm
        offline = isinstance(llm, OfflinePolicy)
        self.summarizer: Summarizer = summarizer or (
            extractive_summary if offline else self.llm_summary
        )
        self.max_steps = max_steps
        self.toolbox = toolbox or memory_toolbox()
        self._schemas: tuple[Toolbox, list[dict[str, Any]]] | None = None
        self.context = ContextWindow(window=llm.context_window,
                                     counter=_prompt_counter(memory, llm),
                                     reserve=int(getattr(llm, "max_tokens", 0) or 0),
                                     count_core=not offline)
        self.stored_context = StoredContext(memory, self.context, self._shown)
        self.stored_context.load()
        #: Whether Ctrl-C was pressed while the last turn committed: held, it let the turn
        #: finish, and a caller that stops on Ctrl-C (a piped run) stops now.
        self.interrupted_at_commit = False
        #: A SIGTERM or SIGHUP held while the last turn was saved (agent/interrupts.py).
        self.terminated_at_commit: int | None = None

    def step(self, user_text: str) -> TurnResult:
        """Run one turn.

        1. Append the user's text to recall, committed on its own (status
           ``pending``) and before anything slow, even its vector, so it is
           kept whatever happens to the turn.
        2. Open the turn's transaction (one memory interaction) and embed the
           message.
        3. Build the context; at the window's limit, make room first (summarise older
           turns, then trim this turn's tool results to share the window).
        4. Call the model with the messages and the tool schemas.
        5. Dispatch each tool call (validated; errors go back as text) and
           append the results as tool messages. A reply sent in the same step as a
           call that failed comes with a notice saying so; a call repeating one of
           the turn exactly gets a note saying so in its result.
           A reply cut at ``max_tokens`` never runs a tool call cut mid-way (the
           model is told it was cut, and gets a step to write it again), and
           a cut plain reply is stored marked as cut; the user is told, also when
           the model spent the budget thinking, or the server's content filter
           stopped the reply.
        6. Repeat 3-5 while a tool call asks for a heartbeat
           (``request_heartbeat=true``) or a tool call failed (so the model can
           correct it), up to ``max_steps``. Otherwise the turn ends after the
           tools run, as in Letta/MemGPT: a plain reply or ``send_message`` ends
           it (even with a heartbeat on ``send_message``, unlike Letta: the
           instructions say a reply ends the turn; another call beside it that asks
           for a heartbeat or fails still gives a step, whose reply is added), and
           so does any other tool called without a heartbeat.
        7. Append the reply to recall, save the in-context window, commit.
           Under a privacy policy, the window is then read back from recall, so
           later turns see what memory kept of this one, not what was typed.

        A provider error, or Ctrl-C (``KeyboardInterrupt``), rolls the
        transaction back (memory is as it was before the turn), marks the
        user's message ``unanswered`` and is re-raised; it is never stored as a
        reply or a memory. Ctrl-C waits while step 1, the rollback or the final
        commit runs (agent/interrupts.py); one held until the turn was saved sets
        ``interrupted_at_commit``. Inside ``terminate_on_signals`` SIGTERM and SIGHUP
        cancel the turn as Ctrl-C does, then end the program (``Terminated``); one held
        until the turn was saved sets ``terminated_at_commit``.
        """
        self.interrupted_at_commit = False
        self.terminated_at_commit = None
        with turn_interrupts() as interrupts:
            interrupts.hold()  # Ctrl-C right after Enter must not lose the message
            text = clean_text(user_text, "message")
            turn = self.memory.tick + 1
            user_id = self.memory.recall.append("user", text, turn, status="pending",
                                                embed=False)
            try:
                with self.memory.interaction():
                    interrupts.release()
                    # An erasure or forget since the last turn (/forget, another process):
                    # the prompt must not carry what it removed.
                    self.stored_context.follow_erasures()
                    self.memory.recall.add_vectors([user_id])
                    result = self._run_turn(turn, user_id, text)
                    interrupts.hold()  # the turn is done; Ctrl-C could only cut its commit
                    self.memory.recall.set_status(user_id, "ok")
                    self.stored_context.save()
            except BaseException:
                interrupts.hold()
                self.memory.recall.set_status(user_id, "unanswered")
                self.stored_context.load()
                interrupts.rearm()
                interrupts.ended()
                self._embed_unanswered(user_id)
                raise
            self.interrupted_at_commit = interrupts.held
            self.terminated_at_commit = interrupts.terminating
            if self.memory.privacy is not None:
                # The turn saw the message as typed; the turns after it see what memory
                # kept of it (withheld sentences, masked arguments), read back from recall.
                self.stored_context.load()
        return result

    def _embed_unanswered(self, message_id: int) -> None:
        """Give a failed turn's message its vector, if that can be done now.

        Its vector was rolled back with the turn. Without one the message is
        still found by its words, so neither another Ctrl-C nor a failing
        embedder may replace the error being reported.
        """
        with contextlib.suppress(Exception, KeyboardInterrupt):
            self.memory.recall.add_vectors([message_id])

    def _run_turn(self, turn: int, user_id: int, text: str) -> TurnResult:
        ctx = ToolContext(memory=self.memory, turn=turn, first_message_id=user_id,
                          earlier_results=earlier_results(lambda: self.context.messages))
        result = TurnResult(reply=None)
        if isinstance(self.llm, OfflinePolicy):
            self.llm.serve(self.memory.forgotten_norms.blocks,
                           lambda fact: self.memory.core.find_same(fact) is not None)
        self._remember(turn, {"role": "user", "content": text}, user_id)
        ctx.request = self.context.current_request()  # what core is shown for (privacy)
        turn_start = len(self.context.messages) - 1
        tools = self._tool_schemas()
        # The offline policy stores facts from what it reads, so it reads the message as
        # memory may keep it: a sentence the privacy policy drops gives no fact, as in
        # process_interaction. A model reads it as typed (README "Privacy").
        privacy = self.memory.privacy
        # It gets each dropped sentence as ``[withheld: CATEGORY]`` (``?`` after a question's),
        # to say why nothing was stored or searched; the sentence's words never reach it. The
        # message carries where the marks are, so such text typed by the user (or pasted
        # from /recall) is read as typed.
        masked = privacy.mask(text, mark_questions=True) if privacy is not None and getattr(
            self.llm, "shown_text", None) else None
        read_text = masked.text if masked is not None else text
        marks = masked.marks if masked is not None else ()
        malformed_streak = 0
        ended_by = ""
        seen = RepeatedCalls()  # the turn's calls: one made again says so in its result
        while result.steps < self.max_steps:
            result.steps += 1
            messages, _, compacted = self.context.make_room(self.memory, tools, self.summarizer,
                                                            turn_start)
            if compacted:
                turn_start = self.context.turn_starts()[-1]
                result.compacted = True
            answered = self.llm.complete(_with_turn_text(messages, read_text, marks), tools)
            if not isinstance(answered, Completion):
                raise TypeError(f"{type(self.llm).__name__}.complete() returned "
                                f"{type(answered).__name__}, not a Completion (agent/llm.py)")
            completion = storable(answered)
            result.usage = result.usage + completion.usage
            if completion.finish_reason == "length":
                completion = cut_at_length(completion, result, self.context.reserve)
            elif completion.finish_reason == "content_filter":
                completion = stopped_by_filter(completion, result)
            elif completion.finish_reason == "tool_calls":
                lost_tool_calls(completion, result)
            completion = once_each(completion)  # the same call twice in one reply runs once
            if not completion.tool_calls:
                result.reply = (completion.content or "").strip() or None
                # A reply an earlier step sent is stored once, as the user reads it.
                if result.reply and not repeats(result.reply, ctx.replies):
                    self._store(turn, completion.as_message())
                break
            self._store(turn, without_oversized_arguments(completion.as_message()),
                        recall_text=sent_text(completion, self.toolbox, ctx.replies))
            outcomes = [self._dispatch(call, ctx, turn, seen) for call in completion.tool_calls]
            note_failed_beside_reply(result, outcomes)
            self.context.blank(ctx.forgotten_messages)
            result.tool_calls.extend(completion.tool_calls)
            result.tool_results.extend(outcomes)
            malformed_streak = malformed_streak + 1 if all(
                r.error_kind in ("invalid_json", "not_an_object") for r in outcomes) else 0
            if malformed_streak >= MAX_MALFORMED_STEPS:
                add_notice(result, f"the model sent unreadable tool arguments "
                                   f"{malformed_streak} times in a row; the turn was stopped")
                result.stopped = "unreadable_tool_calls"
                break
            if not any(r.heartbeat or not r.ok for r in outcomes):
                if not ctx.replies and completion.content and completion.content.strip():
                    # Text written beside the final calls is what the model said last;
                    # it is already in recall as that assistant message's content.
                    result.reply = completion.content.strip()
                ended_by = ", ".join(dict.fromkeys(r.name for r in outcomes))
                break
        else:
            add_notice(result, f"stopped after {self.max_steps} steps without a final reply "
                               "(the step cap); memory changes so far are kept")
            result.stopped = "step_cap"
        if ctx.replies:
            # A plain-content reply that follows sent messages is part of the answer too.
            result.reply = safe_text("\n\n".join(
                said_once([*ctx.replies, *([result.reply] if result.reply else [])])))
        if not result.reply and not result.notice:
            result.notice = "the model ended its turn without a reply" + (
                f" (after {ended_by}, called without request_heartbeat)" if ended_by else "")
        result.memory_changes = ctx.changes
        return result

    def _tool_schemas(self) -> list[dict[str, Any]]:
        # A toolbox is fixed once built: its schemas (copied out of it, ~0.3 ms) and
        # their token count (cached by the context window) can serve every turn.
        if self._schemas is None or self._schemas[0] is not self.toolbox:
            self._schemas = (self.toolbox, self.toolbox.schemas())
        return self._schemas[1]

    def _dispatch(self, call: ToolCall, ctx: ToolContext, turn: int,
                  seen: RepeatedCalls) -> ToolResult:
        before = len(ctx.changes)
        outcome = cut_call_result(call, self.context.reserve) if call.cut else \
            self.toolbox.dispatch(call.name, call.arguments, call_id=call.id, context=ctx)
        outcome = seen.noted(call, outcome, (before, len(ctx.changes)))
        outcome.from_text = call.from_text
        self._store(turn, {"role": "tool", "tool_call_id": call.id, "content": outcome.content},
                    tool_name=call.name)
        return outcome

    def _store(self, turn: int, message: dict[str, Any], tool_name: str | None = None,
               recall_text: str | None = None) -> None:
        # Replies sent through send_message live in tool-call arguments; recall
        # stores their text as the content so conversation_search finds them.
        # Blank text (a model's "\n" beside its tool calls) is stored as empty.
        # Text is made storable here too, whatever produced it: a failed insert
        # would roll the whole turn back.
        content = clipped(safe_text(recall_text or message.get("content") or ""),
                          MAX_TEXT_CHARS, "message")
        if recall_text is None and message.get("content") and content != message["content"]:
            message = {**message, "content": content}  # the window shows what recall keeps
        message_id = self.memory.recall.append_many([NewMessage(
            role=message["role"], content=content if content.strip() else "", turn=turn,
            tool_calls=storable_calls(message.get("tool_calls"), MAX_TEXT_CHARS),
            tool_call_id=message.get("tool_call_id"),
            tool_name=None if tool_name is None else safe_text(tool_name))])[0]
        self._remember(turn, message, message_id)

    def _remember(self, turn: int, message: dict[str, Any], message_id: int) -> None:
        self.context.remember(message, self._shown(message), message_id)

    def _shown(self, message: dict[str, Any]) -> dict[str, Any]:
        """The message as the window shows it: long tool-call arguments and results trimmed,
        and a user message as the client shows it (``shown_text``), if it says."""
        shown = shown_in_window(message, self.context.budget, self.context.counter)
        stand_in = getattr(self.llm, "shown_text", None)
        if stand_in is not None and shown["role"] == "user" and shown.get("content"):
            shown = {**shown, "content": stand_in(shown["content"])}
        return shown

    def llm_summary(self, previous: str, messages: list[dict[str, Any]]) -> str:
        """A recursive summary written by the model (falls back to extractive if empty)."""
        return model_summary(self.llm, previous, messages)


def _with_turn_text(messages: list[dict[str, Any]], text: str,
                    marks: tuple[tuple[int, int], ...] = ()) -> list[dict[str, Any]]:
    """The prompt with the turn's own message whole, where the window shows a stand-in.

    Only a client with ``shown_text`` (the offline policy, which files a long text
    rather than reading it into a prompt) gets more than the window counted. ``marks``:
    where in ``text`` the privacy policy's marks of withheld sentences are (``MASKED_KEY``).
    """
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    if not users or messages[users[-1]].get("content") == text:
        return messages
    last = users[-1]
    turn = {**messages[last], "content": text, **({MASKED_KEY: marks} if marks else {})}
    return [*messages[:last], turn, *messages[last + 1:]]


def _prompt_counter(memory: HierarchicalMemory, llm: LLMClient) -> TokenCounter:
    """A counter in the model's own encoding; the memory's own when they agree.

    Core limits stay counted in the memory's encoding, which is part of its
    stored state; only the prompt, which the model's window bounds, follows the model.
    """
    encoding = getattr(llm, "encoding", None) or memory.tokenizer.encoding
    return memory.tokenizer if encoding == memory.tokenizer.encoding else TokenCounter(encoding)


__all__ = ["Agent", "TurnResult"]


def _check_arguments(memory: Any, llm: Any, max_steps: Any) -> None:
    """Mistakes a caller makes building an Agent, said at once rather than as an
    AttributeError deep in the first turn (with its message left unanswered)."""
    if not isinstance(memory, HierarchicalMemory):
        raise TypeError(f"memory must be a HierarchicalMemory, not {type(memory).__name__}")
    if not isinstance(llm, LLMClient):
        raise TypeError(f"llm must follow the LLMClient protocol (agent/llm.py: name, "
                        f"context_window, complete), not {type(llm).__name__}")
    window = getattr(llm, "context_window", None)
    if not isinstance(window, int) or isinstance(window, bool) or window < 1:
        raise TypeError(f"llm.context_window must be a whole number of tokens, not "
                        f"{window!r}")
    if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1:
        raise ValueError(f"max_steps must be a whole number of at least 1, not {max_steps!r}")
