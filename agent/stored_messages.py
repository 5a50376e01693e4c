"""Messages as the agent stores them in recall and reads them back (agent/loop.py).

A completion is made storable before anything keeps it (``storable``), a reply cut at
max_tokens keeps only what is whole (``cut_at_length``), a reply the server's content
filter stopped is marked so (``stopped_by_filter``), and a tool call's arguments over the
dispatch limit give way to a note (``without_oversized_arguments``).
What ``send_message`` sent is stored as the text of the assistant message that called it,
so conversation_search finds it (``sent_text``; a call dispatch refuses sent nothing and
adds nothing), and taken out of that text again when the window is read back from recall
(``as_chat``, which knows a refused call by its ``Error:`` result); a summary of recall
reads that text (``as_said``), never a call's arguments.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection
from typing import Any

from tiermem.agent.earlier_turns import refused_calls
from tiermem.agent.llm import Completion, ToolCall, is_whole_json
from tiermem.agent.turn_result import TurnResult, add_notice
from tiermem.memory.validation import MAX_TEXT_CHARS
from tiermem.tools.dispatch import ERROR_PREFIX, MAX_ARGUMENT_BYTES, Toolbox, ToolResult
from tiermem.tools.memory_tools import nothing_to_send
from tiermem.tools.safe_text import clipped, safe_text


def storable(completion: Completion) -> Completion:
    """The completion as text that can be stored and sent, so one bad character never
    costs the turn.

    Lone surrogates become U+FFFD and NUL characters are dropped, in the content
    and in tool-call ids, names and arguments (an odd name is then reported back
    as unknown). Content over recall's limit for one message is cut, with a
    marker, rather than refused.
    """
    content = completion.content
    if content is not None:
        content = clipped(safe_text(content), MAX_TEXT_CHARS, "reply")
    return dataclasses.replace(completion, content=content, tool_calls=[
        dataclasses.replace(c, id=safe_text(c.id), name=safe_text(c.name),
                            arguments=safe_text(c.arguments))
        for c in completion.tool_calls
    ])


def cut_at_length(completion: Completion, result: TurnResult, reserve: int) -> Completion:
    """A reply that stopped at max_tokens (``reserve``), made safe to keep: its last tool call,
    cut mid-way (its arguments do not parse), is never run: marked ``cut``, so that the model
    is told (``cut_call_result``), its arguments a note saying so, which, unlike the partial
    JSON, a chat template can read when the call is sent back; or dropped when the limit cut
    it before its name; a plain
    reply, or the text after whole calls written as text, is kept, marked as cut. The user is
    told either way (a notice on ``result``), and also when a reasoning model spent the whole
    budget thinking and left no reply at all."""
    limit = _limit(reserve)
    raise_it = "raise it with --max-tokens / TIERMEM_MAX_TOKENS"
    # Only the last call can be cut: one before it whose arguments do not parse was written
    # whole but wrong, and is answered so, as in any reply, for the model to write it again.
    kept, last = completion.tool_calls[:-1], completion.tool_calls[-1:]
    if last and not is_whole_json(last[0].arguments):
        name = last[0].name  # none when the limit cut it before its name
        called = f"a call to {name}" if name else "a tool call"
        add_notice(result, f"the reply was cut at {limit} in the middle of {called}, "
                           f"which was not run; {raise_it}")
        if name:  # its partial arguments give way to a note: templates parse arguments
            note = json.dumps({"omitted": f"{len(last[0].arguments)} characters, cut off "
                                          f"at {limit}"})
            kept.append(dataclasses.replace(last[0], arguments=note, cut=True))
        return dataclasses.replace(completion, tool_calls=kept)
    content = (completion.content or "").rstrip()
    if completion.tool_calls and not (completion.text_after_calls and content):
        return completion  # whole calls; text after them is what the limit cut
    if not content.strip():
        if completion.thought:
            add_notice(result, f"the model used its whole reply budget "
                               f"({limit}) thinking and gave no reply; {raise_it}")
        return completion
    add_notice(result, f"the reply was cut at {limit}; {raise_it}")
    return dataclasses.replace(completion, content=f"{content} [cut off at {limit}]")


def cut_call_result(call: ToolCall, reserve: int) -> ToolResult:
    """What the model is told of its ``call`` that the token limit (``reserve``) cut off:
    an error saying it was not run, for it to write the call again, shorter."""
    message = (f"your call to {call.name} was cut off at the reply's token limit "
               f"({_limit(reserve)}) before its arguments ended, and was not run; call it "
               f"again with shorter arguments, or split the text over several calls")
    return ToolResult(call.name, call.id, ERROR_PREFIX + message, False, error=message,
                      error_kind="invalid_json")


def _limit(reserve: int) -> str:
    return f"max_tokens={reserve}" if reserve else "its limit"


def stopped_by_filter(completion: Completion, result: TurnResult) -> Completion:
    """A reply the server's content filter stopped (``finish_reason`` "content_filter"):
    the user is told (a notice on ``result``), and text that came before the stop is kept,
    marked as stopped, for it is not what the model would have said."""
    content = (completion.content or "").rstrip()
    if completion.tool_calls or not content.strip():
        add_notice(result, "the server's content filter stopped the reply")
        return completion
    add_notice(result, "the server's content filter stopped the reply part-way")
    return dataclasses.replace(completion, content=f"{content} [stopped by the content filter]")


def lost_tool_calls(completion: Completion, result: TurnResult) -> None:
    """A reply the server marked as tool calls (``finish_reason`` "tool_calls") that holds
    no call and no text: the model called something the server's tool-call parser could
    not read, and dropped. The user is told (a notice on ``result``) rather than shown
    nothing."""
    if completion.tool_calls or (completion.content or "").strip():
        return
    add_notice(result, "the server said the model called a tool but sent no call and no "
                       "text: its tool-call parser may not fit the model (see the server's "
                       "log; vLLM --tool-call-parser, llama-server --jinja and the model's "
                       "own template)")


def without_oversized_arguments(message: dict[str, Any]) -> dict[str, Any]:
    """The assistant message with arguments over the dispatch limit replaced by a note.

    Dispatch rejects such a call; keeping its megabyte of text in the window
    would overflow the context before the model could read the rejection.
    """
    for tool_call in message.get("tool_calls", []):
        arguments = tool_call["function"]["arguments"]
        if _oversized(arguments):
            tool_call["function"]["arguments"] = json.dumps(
                {"omitted": f"{len(arguments)} characters, over the 1 MB limit"})
    return message


def _oversized(arguments: str) -> bool:
    return len(arguments.encode(errors="replace")) > MAX_ARGUMENT_BYTES


def sent_text(completion: Completion, toolbox: Toolbox | None = None,
              already_sent: Collection[str] = ()) -> str:
    """What recall stores as an assistant message's text: its content, then the messages
    its ``send_message`` calls sent, but for those ``already_sent`` (an earlier step of the
    turn sent them, and the user reads each reply once).

    A call ``toolbox`` refuses (a number for the text, a field the tool does not take,
    nothing but spaces) sent nothing and adds nothing: recall must not say the agent said
    it. The call stays among the message's tool calls, paired with its ``Error:`` result.
    A send that repeats the content (a small model writes its reply and sends it too) is
    stored once, as the user read it.
    """
    content = completion.content or ""
    said = {content.strip(), *(text.strip() for text in already_sent)}
    sent = [text for text in said_once(_sent(completion.tool_calls, toolbox))
            if text.strip() not in said]
    joined = "\n\n".join(sent)
    return content + ("\n\n" if content and joined else "") + joined


def said_once(replies: list[str]) -> list[str]:
    """``replies`` without those that repeat an earlier one (spacing around it aside): a
    small model echoes its ``send_message`` in the same step or the next, and the user
    must not read the same reply twice."""
    seen: set[str] = set()
    once = []
    for reply in replies:
        if reply.strip() not in seen:
            seen.add(reply.strip())
            once.append(reply)
    return once


def repeats(reply: str, already_sent: Collection[str]) -> bool:
    """Whether ``reply`` (spacing around it aside) is one of ``already_sent``: a small model
    writes as text what it sent a step before, and the user reads it once."""
    return reply.strip() in {text.strip() for text in already_sent}


def _sent(calls: list[ToolCall], toolbox: Toolbox | None) -> list[str]:
    """The texts of the ``send_message`` calls among ``calls`` that ``toolbox`` would run
    (all of them without one)."""
    texts = []
    for call in calls:
        if call.name != "send_message" or _oversized(call.arguments) or (
                toolbox is not None and toolbox.check(call.name, call.arguments) is not None):
            continue
        try:
            arguments = json.loads(call.arguments)
            if isinstance(arguments, str):  # JSON of JSON, which dispatch reads too
                arguments = json.loads(arguments)
            text = str(arguments.get("message", ""))
        except (ValueError, AttributeError):
            continue
        if not nothing_to_send(text):
            texts.append(text)
    return texts


def as_chats(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Recall rows as the chat messages they were (``as_chat``), a ``send_message`` call
    answered by an ``Error:`` among them known as one that sent nothing."""
    refused = refused_calls(rows)
    return [as_chat(row, refused) for row in rows]


def as_chat(row: dict[str, Any], refused: Collection[str] = ()) -> dict[str, Any]:
    """A recall row as the chat message it was, without the sent text recall added to it.

    The calls in ``refused`` (ids of calls answered by an error) sent nothing, so none of
    their text is taken off the content. Each sent text is taken off its end, the last
    first; one that is not there (a call refused whose result is not at hand) is skipped.
    A message stored before refused sends were left out ends with every send's text, the
    refused ones' too: all of them are taken off, so a refused send never reads as the
    model's own words either.
    """
    message: dict[str, Any] = {"role": row["role"], "content": row["content"]}
    if row.get("tool_calls"):
        message["tool_calls"] = row["tool_calls"]
        # "" rather than null, which some servers refuse
        message["content"] = _own_text(row, refused)[0]
    if row.get("tool_call_id"):
        message["tool_call_id"] = row["tool_call_id"]
    return message


def as_said(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Recall rows as what was said in them, for a summary: the user's messages and the
    assistant's, each as its text, without tool calls.

    Recall keeps what ``send_message`` sent as the text of the message that called it, and
    never a send dispatch refused, so the text is all a summary needs. Read from the calls
    instead, a refused send whose ``Error:`` result is not among ``rows`` (erased, or past
    the end of the range read) would be quoted as said. A message stored before refused
    sends were left out has the text of those answered by an error among ``rows`` taken
    out.
    """
    refused = refused_calls(rows)
    said = []
    for row in rows:
        if row["role"] not in ("user", "assistant"):
            continue
        text = row["content"] or ""
        if row.get("tool_calls"):
            own, sent = _own_text(row, refused)
            if sent is not None:
                text = "\n\n".join(t for t in (own, *sent) if t)
        said.append({"role": row["role"], "content": text})
    return said


def _own_text(row: dict[str, Any], refused: Collection[str]) -> tuple[str, list[str] | None]:
    """An assistant row's content without the sent texts recall added to it, and, when it
    was stored by a version that added refused sends' texts too, the texts that were sent
    (None otherwise: the content holds just those)."""
    content = row["content"] or ""
    calls = [ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
             for c in row["tool_calls"]]
    every = [text.strip() for text in _sent(calls, None)]  # recall stored them trimmed
    sent = [text.strip() for text in _sent([c for c in calls if c.id not in refused], None)]
    if len(sent) < len(every):
        own = _taken_off(content, every, all_there=True)
        if own is not None:
            return own, sent
    return _taken_off(content, sent, all_there=False) or "", None


def _taken_off(content: str, texts: list[str], *, all_there: bool) -> str | None:
    """``content`` without ``texts`` at its end, the last first: one that is not there is
    skipped, or, with ``all_there``, gives None."""
    for text in reversed(texts):
        if content.rstrip().endswith(text):
            content = content.rstrip()[: -len(text)].rstrip()
        elif all_there:
            return None
    return content


__all__ = ["as_chat", "as_chats", "as_said", "cut_at_length", "cut_call_result", "repeats",
           "said_once", "sent_text", "stopped_by_filter", "storable", "without_oversized_arguments"]
