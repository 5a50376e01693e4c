"""The offline policy: a rule-based stand-in for a language model.

It reads the same messages a model would and answers with the same tool
calls, so every turn goes through the real tool dispatch:

- statements: it extracts facts (memory/text/extract.py) with their durability
  (memory/text/durability.py) and calls ``core_memory_append`` for each
  (agent/offline_statements.py decides which facts change). A fact
  that changes an earlier one (memory/text/updates.py: "I moved to Porto", "my
  phone number is actually ...", "I no longer work at Acme") first retires
  the old fact with ``core_memory_replace(old, "")``, which marks it
  superseded; a retraction stores nothing new, unless it denies nothing held ("I
  can't eat gluten anymore" is then stored as said). A new value of a durable
  fact is durable; a greeting's "I'm X" names the user only while no other name is
  held ("Hi, I'm Nervous" leaves "User's name is Maya"). A slip corrected ("Sorry, I
  meant Portland, not Seattle": memory/text/corrections.py) retires the fact that said it
  and appends it as meant, and the reply says so (agent/offline_corrections.py), or why
  nothing changed. A long pasted text (a log, a document) is filed with
  ``archival_memory_insert``, in parts of at most ``CHUNK_CHARS`` cut at
  sentence or line ends, and the reply says so;
- questions: it calls ``archival_memory_search`` and ``conversation_search``
  (the user's messages; more pages while a page holds only questions), reads
  core from its own context, then answers with ``send_message`` quoting its
  best evidence (agent/offline_answers.py), and says that it is offline. A
  question or request about the user, or memory, in general ("What do you know
  about me?", "Tell me everything you remember") lists core's facts, with no
  search;
- a request for a reminder ("Remind me to ..."): it says that it can set none
  and that the message stays in recall, where a later question finds it; one to be
  called back ("Call me back tomorrow at 9.") or to have a taxi called ("Call me a
  taxi") that it can make no call, likewise;
- a sentence the privacy policy drops comes as ``[withheld: CATEGORY]`` (``?`` after a
  question's): it gives no fact and no search, and the reply names the category;

It has no language model, so it never paraphrases or reasons: it quotes.

Nor has it a context window of its own. ``context_window`` (32,768 tokens
by default) only paces the extractive summary that folds old turns away:
core does not count against it, and a message the policy files rather than
reads stands in the window as a short note (``shown_text``), so neither a
large core nor a paste as long as recall accepts (200,000 characters) is
refused for a window no model imposes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from tiermem.agent.config import DEFAULT_MAX_TOKENS
from tiermem.agent.llm import Completion, ToolCall, unique_id_prefix
from tiermem.agent.offline_answers import LONG_TEXT_CHARS, answer, asks_in_general, core_facts
from tiermem.agent.offline_archival_note import kept_in_archival_note, retired_this_turn
from tiermem.agent.offline_corrections import correction_notes, recent_statements
from tiermem.agent.offline_said_last import (
    NOTHING_MATCHED,
    cancelled_notes,
    dropped_notes,
    forgot_nothing_more,
    retraction_note,
)
from tiermem.agent.offline_statements import core_changes, told_last
from tiermem.memory.text.asked_requests import as_requests
from tiermem.memory.text.clauses import clauses_of
from tiermem.memory.text.extract import is_question
from tiermem.memory.text.introductions import asks_a_call
from tiermem.memory.text.keep_requests import keeps_nothing_held
from tiermem.memory.text.pronoun_subjects import unnamed_pronouns
from tiermem.memory.text.sentences import chunk_text, split_sentences
from tiermem.memory.text.statements import forgets_the_last, keeps_the_last
from tiermem.memory.text.taken_back import taken_back_apart
from tiermem.memory.text.tokenizer import DEFAULT_ENCODING

NAME = "offline policy (rule-based, no language model)"
#: The largest part of a long text filed as one passage: well within what the archival
#: tool accepts, small enough that a page of five search hits fits a tool result
#: (20,000 characters), and that search points at the right part.
CHUNK_CHARS = 2_000
_FILED = re.compile(r"^Filed in archival as passage (\d+)")
#: Recall pages read for a question while each page holds only questions.
MAX_RECALL_PAGES = 3
_PAGE = re.compile(r"^(\d+) of (\d+)$")
#: A request for a reminder, which the policy can only keep in recall.
_REMINDER = re.compile(
    r"^\W*(?:(?:please|pls|can\s+you|could\s+you|would\s+you)\s+)?"
    r"(?:remind\s+(?:me|us)\b(?!\s*(?:what|where|who|when|how|which|whether|if|:))"
    r"|remember\s+to\b|(?:don['’]?t|do\s+not)\s+(?:let\s+(?:me|us)\s+)?forget\s+(?:to|about(?!\s+(?:my|our)\b))\b)"
    r"(?!.*\?\s*$)",
    re.IGNORECASE | re.DOTALL)
REMINDER_NOTE = ("(offline) I can't set reminders: offline, I have no clock and send no "
                 "notifications. Your message is kept in recall, so asking about it later "
                 "(\"What did I ask you to remind me about?\") finds it.")

#: A request to be called ("Call me back tomorrow at 9.", "Call me a taxi"): no fact, and
#: no call the policy can make; ``asks_a_call`` tells it from "Call me Sammy" or "Call me
#: at 555-0101".
_CALL_BACK = re.compile(
    r"^\W*(?:(?:please|pls|just|and|then|so),?\s+)*call\s+(?:me|us)\b"
    r"(?:\s+(?:back|again|up|an?)\b|\W*$|\s+(?:at|on|in|by|around|after|before|when|once|as"
    r"|asap|soon|later|today|tonight|tomorrow|tmrw|next|this|whenever|until|till)\b)",
    re.IGNORECASE)
CALL_NOTE = ("(offline) I can't make calls or set reminders: offline, I have no clock and "
             "no phone. Your message is kept in recall, so asking about it later finds it.")

#: The reply to "Never forget that." alone: nothing is forgotten unless asked, so it
#: changes nothing, and the user should know that nothing was stored for it.
KEPT_NOTE = ("(offline) I keep what you tell me until you ask me to forget it, so nothing "
             "changed and nothing new was stored.")


#: The most of a message's questions searched for; a paste may hold many.
MAX_QUERY_CHARS = 500
#: Tools whose plain-text result says what they stored.
_STORING_TOOLS = frozenset({"core_memory_append", "core_memory_replace",
                            "archival_memory_insert"})


def _question_text(text: str) -> str:
    """The message's questions, the last ones first kept when there are many."""
    kept: list[str] = []
    for question in reversed([s for s in split_sentences(text) if is_question(s)]):
        if kept and sum(map(len, kept)) + len(question) > MAX_QUERY_CHARS:
            break
        kept.insert(0, question[:MAX_QUERY_CHARS])
    return " ".join(kept)


#: A sentence the privacy policy dropped, as the agent loop passes it (``?`` after a
#: question's): ``[withheld: CATEGORY]`` (memory/privacy/retention.py).
_WITHHELD_SENTENCE = re.compile(r"\[withheld: ([\w .&/-]{1,60})\](\?)?")
#: The key the agent loop sets on a user message whose withheld sentences it marked, to
#: where the marks are (``Masked.marks``): only those are read as marks, and a
#: ``[withheld: CATEGORY]`` the user typed (or pasted from /recall) is read as typed.
MASKED_KEY = "tiermem_masked"


def _without_withheld(text: str, marks: Any) -> tuple[str, tuple[list[str], list[str]]]:
    """``text`` with each withheld sentence at ``marks`` out (as ``Masked.kept`` has it),
    and the categories withheld: of statements, of questions."""
    stated: list[str] = []
    asked: list[str] = []
    out: list[str] = []
    cursor = 0
    for start, end in sorted(tuple(span) for span in marks):
        match = _WITHHELD_SENTENCE.fullmatch(text, start, end) if start >= cursor else None
        if match is None:  # not a mark where it was said to be: read as typed
            continue
        (asked if match[2] else stated).append(match[1])
        out += [text[cursor:start], "\n"]
        cursor = end
    return "".join([*out, text[cursor:]]), (stated, asked)


def _listed(categories: list[str]) -> str:
    return ", ".join(dict.fromkeys(categories))


def _tool_names(messages: list[dict[str, Any]]) -> dict[str, str]:
    """Which tool each call id named, from the assistant messages' calls."""
    return {call["id"]: call["function"]["name"] for m in messages
            for call in m.get("tool_calls") or []}


class OfflinePolicy:
    """An ``LLMClient`` that drives the memory tools by rules."""

    name = NAME

    #: Counted like the default memory tokenizer; the policy has no tokenizer of its own.
    encoding = DEFAULT_ENCODING

    def __init__(self, context_window: int = 32_768, max_tokens: int = DEFAULT_MAX_TOKENS,
                 forgotten: Callable[[str], bool] | None = None) -> None:
        self.context_window = context_window
        self.max_tokens = max_tokens
        #: Whether the memory forgot a fact. A fact the user's earlier messages held, put
        #: back by "Forget that." or "back on", is not stored again when it did: the
        #: append would also lift its block. When none is given, each turn checks the
        #: memory of the ``Agent`` taking it (``serve``).
        self.forgotten = forgotten
        self._served_forgot: Callable[[str], bool] | None = None
        self._served_holds: Callable[[str], bool] | None = None
        self._ids = 0
        self._id_prefix = unique_id_prefix("offline")  # a model may read this history later

    def serve(self, memory_forgot: Callable[[str], bool],
              memory_holds: Callable[[str], bool] | None = None) -> None:
        """Check ``memory_forgot`` in the turn to come, unless a check was given, and
        ``memory_holds`` (whether the memory holds a fact, in either tier) before a
        "Forget that." holds again what an earlier message ended: one policy may serve
        Agents of several memories, and what one forgot says nothing of another's facts."""
        self._served_forgot = memory_forgot
        self._served_holds = memory_holds

    def shown_text(self, text: str) -> str:
        """What the context window shows, and counts, of a user message.

        A long text is filed in archival, never read back from the window, so a
        short note stands in for it; the turn itself still gets the whole text.
        """
        if len(text) < LONG_TEXT_CHARS:
            return text
        return f"[{len(text):,} characters, filed in archival: {text[:80].strip()}…]"

    def _call(self, name: str, **arguments: Any) -> ToolCall:
        self._ids += 1
        return ToolCall(id=f"{self._id_prefix}_{self._ids}", name=name,
                        arguments=json.dumps(arguments))

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        start = max(i for i, m in enumerate(messages) if m["role"] == "user")
        content = messages[start].get("content") or ""
        user_text, withheld = _without_withheld(content, messages[start].get(MASKED_KEY) or ())
        # "Can you forget my password?" asks for nothing to be searched or quoted back; what
        # the turn retired is held still, so "Don't forget to delete my address" stays a request
        user_text = as_requests(user_text, [*core_facts(messages), *retired_this_turn(messages)])
        results = [m for m in messages[start + 1 :] if m["role"] == "tool"]
        calls = (self._first_step(user_text, core_facts(messages), recent_statements(messages))
                 if not results else self._more_recall(user_text, results))
        if calls:
            return Completion(content=None, tool_calls=calls, model="offline")
        return Completion(
            content=None,
            tool_calls=[self._call("send_message", message=self._reply(messages, user_text,
                                                                       results, withheld))],
            model="offline",
        )

    def _first_step(self, text: str, core: dict[str, str], recent: list[str]) -> list[ToolCall]:
        calls: list[ToolCall] = []
        query = _question_text(text)
        if query and asks_in_general(query) is None:  # a general one lists core: no search
            calls.append(self._call("archival_memory_search", query=query, request_heartbeat=True))
            calls.append(self._call("conversation_search", query=query, roles=["user"],
                                    request_heartbeat=True))
        if len(text) >= LONG_TEXT_CHARS:
            return calls + [self._call("archival_memory_insert", content=part,
                                       request_heartbeat=True)
                            for part in chunk_text(text, CHUNK_CHARS)]
        return calls + self._statement_calls(text, core, recent)

    def _statement_calls(self, text: str, core: dict[str, str],
                         recent: list[str] | None = None) -> list[ToolCall]:
        """Retire what the statements change or deny, then append the facts they state
        (``core_changes``)."""
        retired, new = core_changes(text, core, recent, self.forgotten or self._served_forgot,
                                    self._served_holds)
        return ([self._call("core_memory_replace", old_content=old, new_content="",
                            request_heartbeat=True) for old in retired]
                + [self._call("core_memory_append", content=fact, durability=durability,
                              request_heartbeat=True) for fact, durability in new.items()])

    def _more_recall(self, text: str, results: list[dict[str, Any]]) -> list[ToolCall]:
        """The next page of recall, while the pages so far held only the user's questions."""
        payloads = [_payload(m) for m in results]
        recall = [p for p in payloads if p is not None and p.get("tier") == "recall"]
        if not recall:
            return []
        page = _PAGE.match(str(recall[-1].get("page", "")))
        hits = [h for p in recall for h in p.get("results", [])]
        if (page is None or int(page[1]) >= min(int(page[2]), MAX_RECALL_PAGES)
                or any(not is_question(str(h.get("text", ""))) for h in hits)):
            return []
        return [self._call("conversation_search", query=_question_text(text), roles=["user"],
                           page=int(page[1]) + 1, request_heartbeat=True)]

    def _reply(self, messages: list[dict[str, Any]], user_text: str,
               results: list[dict[str, Any]],
               withheld: tuple[list[str], list[str]] = ([], [])) -> str:
        stored, found, errors = [], [], []
        names = _tool_names(messages)
        for message in results:
            content = message.get("content") or ""
            if content.startswith("Error:"):
                errors.append(content)
            elif names.get(message.get("tool_call_id") or "") in _STORING_TOOLS:
                stored.append(content)
            elif (payload := _payload(message)) is not None:
                found.append(payload)
        # "Tell me everything you remember" asks, as a request rather than a question.
        question = _question_text(user_text) or (
            user_text if asks_in_general(user_text) is not None else "")
        parts: list[str] = []
        if question:
            parts.append(answer(list(core_facts(messages)), question, found))
        filed = [int(m[1]) for m in map(_FILED.match, stored) if m]
        if len(filed) > 1:
            stored = [note for note in stored if not _FILED.match(note)]
            parts.append(f"(offline) Your message of {len(user_text):,} characters is too long "
                         f"to keep in view, so I filed it in archival in {len(filed)} parts "
                         f"(passages {min(filed)}-{max(filed)}); ask about it and I will "
                         "search them.")
        if stored:
            parts.append("Noted.\n" + "\n".join(f"- {note}" for note in stored))
        if errors:
            parts.append("Could not store everything: " + " ".join(errors))
        parts += correction_notes(messages, user_text)
        parts += cancelled_notes(user_text)
        parts += kept_in_archival_note(messages, user_text)
        if any(_REMINDER.match(s) for s in split_sentences(user_text)):
            parts.append(REMINDER_NOTE)
        elif any(_CALL_BACK.match(s) and asks_a_call(s) for s in split_sentences(user_text)):
            parts.append(CALL_NOTE)
        stated, asked = withheld
        if stated:
            parts.append(f"(offline) The privacy policy kept the {_listed(stated)} part of your "
                         "message out of memory.")
        if asked:
            parts.append(f"(offline) The privacy policy withholds your {_listed(asked)} question, "
                         "so I did not search memory for it.")
        forgot_none = False  # a "Forget that." of a last message that told several facts
        if not parts and any(forgets_the_last(s) for s in split_sentences(user_text)):
            held = [part for fact in core_facts(messages) for part in clauses_of(fact)]
            if forgot_none := len(told := told_last(recent_statements(messages), held)) > 1:
                parts.append(f"(offline) Your last message told me {len(told)} facts "
                             f"({'; '.join(told)}), so I forgot none; say which one to "
                             'forget: "Forget that ...".')
        if not parts and any(keeps_the_last(s, core_facts(messages))
                             for s in split_sentences(user_text)):
            parts.append(KEPT_NOTE)
        if not parts and (unheld := next(filter(None, (keeps_nothing_held(s, core_facts(
                messages)) for s in split_sentences(user_text))), None)):
            parts.append(f"(offline) I hold nothing about {unheld}, so nothing was kept; "
                         "tell me it and I will keep it.")
        # "Tom is tall. Scratch that, she's a doctor" took Tom's fact back, whoever she is
        if retracted := None if parts else retraction_note(user_text, recent_statements(messages)):
            parts.append(retracted)
        unnamed = unnamed_pronouns(taken_back_apart(split_sentences(user_text)), next(iter(
            recent_statements(messages)), None))
        if unnamed and parts == [NOTHING_MATCHED]:
            parts = []  # "Scratch that, she's a doctor" said first: who "she" is says enough
        if unnamed:
            # beside facts stored or a question answered, what was said of them would go
            # unmentioned
            kept = "nothing changed" if not parts else "I did not store what you said of them"
            verb = "are" if unnamed[0].casefold() == "they" else "is"
            parts.append(f'(offline) I could not tell who "{unnamed[0]}" {verb}, so {kept}; '
                         "say their name.")
        if not retracted and (again := forgot_nothing_more(user_text, recent_statements(messages),
                                                            forgot_none)):
            parts.append(again)  # beside what the first forgot
        # said beside a fact stored, a share or denial dropped would otherwise go unmentioned
        parts += dropped_notes(user_text, recent_statements(messages))
        if not parts:
            parts.append("I'm running offline without a language model; I store the facts you "
                         "tell me and answer questions by quoting my memory.")
        return "\n".join(parts)


def _payload(message: dict[str, Any]) -> dict[str, Any] | None:
    """A search tool's JSON result, or None for a plain-text result."""
    try:
        payload = json.loads(message.get("content") or "")
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None
