"""The offline policy: a rule-based stand-in for a language model.

It reads the same messages a model would and answers with the same tool
calls, so every turn goes through the real tool dispatch:

- statements: it extracts facts (memory/extract.py) with their durability
  (memory/durability.py) and calls ``core_memory_append`` for each; a long
  pasted text (a log, a document) is filed whole with ``archival_memory_insert``;
- questions: it calls ``archival_memory_search`` and ``conversation_search``
  and reads core from its own context, then answers with ``send_message``
  quoting its best hits, and says that it is offline.

It has no language model, so it never paraphrases or reasons: it quotes.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agent.config import DEFAULT_MAX_TOKENS
from agent.llm import Completion, ToolCall
from memory.extract import extract_facts, is_question
from memory.search import query_terms
from memory.sentences import split_sentences
from memory.tokenizer import DEFAULT_ENCODING

NAME = "offline policy (rule-based, no language model)"
LONG_TEXT_CHARS = 600
_CORE_BLOCK = re.compile(r"<core_memory[^>]*>\n(.*?)</core_memory>", re.DOTALL)
_SUFFIXES = ("ing", "ed", "es", "s")
_ATTRIBUTE = re.compile(r"^(?P<subject>[\w' -]{2,60}?)\s+(?:is|are)\s+(?P<value>.+)$", re.I)
_CHANGE_WORDS = frozenset({"the", "a", "an", "new", "now", "current", "updated", "latest"})
_BARE_SUBJECTS = frozenset({"user", "i", "we", "he", "she", "they", "it", "this", "that",
                            "there", "here", "everything", "something"})


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _terms(text: str) -> set[str]:
    return {_stem(t) for t in query_terms(text)}


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _core_facts(messages: list[dict[str, Any]]) -> list[str]:
    """Core facts as rendered in the system message (what a model would read)."""
    system = messages[0].get("content") or "" if messages else ""
    block = _CORE_BLOCK.search(system)
    if block is None:
        return []
    return [_unescape(line[2:]) for line in block.group(1).splitlines() if line.startswith("- ")]


def attribute_of(fact: str) -> str | None:
    """The attribute a fact sets ("User's new address is X" -> "user's address"), if clear.

    Facts whose subject is only a person or pronoun ("User is vegan") name no
    attribute: several of them can be true at once.
    """
    match = _ATTRIBUTE.match(fact.strip())
    if match is None:
        return None
    words = [w for w in re.findall(r"[\w'-]+", match["subject"].casefold())
             if w not in _CHANGE_WORDS]
    if not words or " ".join(words) in _BARE_SUBJECTS:
        return None
    return " ".join(words)


def superseded(fact: str, core: list[str]) -> list[str]:
    """Core facts that set the same attribute as ``fact`` to a different value."""
    attribute = attribute_of(fact)
    if attribute is None:
        return []
    return [old for old in core
            if attribute_of(old) == attribute and old.casefold() != fact.casefold()]


class OfflinePolicy:
    """An ``LLMClient`` that drives the memory tools by rules."""

    name = NAME

    #: Counted like the default memory tokenizer; the policy has no tokenizer of its own.
    encoding = DEFAULT_ENCODING

    def __init__(self, context_window: int = 32_768, max_tokens: int = DEFAULT_MAX_TOKENS) -> None:
        self.context_window = context_window
        self.max_tokens = max_tokens
        self._ids = 0

    def _call(self, name: str, **arguments: Any) -> ToolCall:
        self._ids += 1
        return ToolCall(id=f"offline-{self._ids}", name=name, arguments=json.dumps(arguments))

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        start = max(i for i, m in enumerate(messages) if m["role"] == "user")
        user_text = messages[start].get("content") or ""
        results = [m for m in messages[start + 1 :] if m["role"] == "tool"]
        if not results:
            calls = self._first_step(user_text, _core_facts(messages))
            if calls:
                return Completion(content=None, tool_calls=calls, model="offline")
        return Completion(
            content=None,
            tool_calls=[self._call("send_message", message=self._reply(messages, user_text,
                                                                       results))],
            model="offline",
        )

    def _first_step(self, text: str, core: list[str]) -> list[ToolCall]:
        calls: list[ToolCall] = []
        sentences = split_sentences(text)
        if any(is_question(s) for s in sentences):
            query = " ".join(s for s in sentences if is_question(s))
            calls.append(self._call("archival_memory_search", query=query, request_heartbeat=True))
            calls.append(self._call("conversation_search", query=query, request_heartbeat=True))
        if len(text) >= LONG_TEXT_CHARS:
            calls.append(self._call("archival_memory_insert", content=text,
                                    request_heartbeat=True))
            return calls
        for fact in extract_facts(text):
            if fact.durability == "durable":
                # A new value for a known attribute retires the old one to archival.
                calls += [self._call("core_memory_replace", old_content=old, new_content="",
                                     request_heartbeat=True) for old in superseded(fact.text, core)]
            calls.append(self._call("core_memory_append", content=fact.text,
                                    durability=fact.durability, request_heartbeat=True))
        return calls

    def _reply(self, messages: list[dict[str, Any]], user_text: str,
               results: list[dict[str, Any]]) -> str:
        stored, found, errors = [], [], []
        for message in results:
            content = message.get("content") or ""
            if content.startswith("Error:"):
                errors.append(content)
                continue
            try:
                payload = json.loads(content)
            except ValueError:
                stored.append(content)
                continue
            if isinstance(payload, dict):
                found.append(payload)
        sentences = split_sentences(user_text)
        question = " ".join(s for s in sentences if is_question(s))
        parts: list[str] = []
        if question:
            parts.extend(self._answer(messages, question, found))
        if stored:
            parts.append("Noted.\n" + "\n".join(f"- {note}" for note in stored))
        if errors:
            parts.append("Could not store everything: " + " ".join(errors))
        if not parts:
            parts.append("I'm running offline without a language model; I store the facts you "
                         "tell me and answer questions by quoting my memory.")
        return "\n".join(parts)

    def _answer(self, messages: list[dict[str, Any]], question: str,
                found: list[dict[str, Any]]) -> list[str]:
        wanted = _terms(question)
        core = _core_facts(messages)
        best_core = sorted(
            ((len(wanted & _terms(fact)), fact) for fact in core), key=lambda p: -p[0]
        )
        quoted = [fact for score, fact in best_core[:2] if score > 0]
        lines = [f"From core memory: {fact}" for fact in quoted]
        # Core holds an attribute's current value; older values in archival are superseded.
        current = {attribute_of(fact) for fact in quoted} - {None}
        for payload in found:
            tier = payload.get("tier")
            for hit in payload.get("results", [])[:2]:
                text = hit.get("text", "")
                if hit.get("role") == "assistant" or not wanted & _terms(text):
                    continue
                if tier == "archival" and attribute_of(text) in current:
                    continue
                if tier == "archival":
                    when = f" (evicted from core {hit['evicted']})" if hit.get("evicted") else ""
                    lines.append(f"From archival{when}: {text}")
                else:
                    lines.append(f"From our conversation ({hit.get('sent')}): {text}")
        if not lines:
            return ["(offline) I found nothing in memory about that."]
        return ["(offline, quoting memory)\n" + "\n".join(f"- {line}" for line in
                                                        dict.fromkeys(lines))]
