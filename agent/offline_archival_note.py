"""What the offline policy's reply says of a fact a request to forget retired: archival
keeps it as a past fact, and how to remove it for good.
"""

from __future__ import annotations

import json
from typing import Any

from tiermem.memory.text.deleted_names import deleted_name
from tiermem.memory.text.forget_requests import CLAUSE_BREAK
from tiermem.memory.text.joint_shares import member_shares
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.statements import as_news, forgets_the_last

__all__ = ["kept_in_archival_note", "retired_this_turn"]


def retired_this_turn(messages: list[dict[str, Any]]) -> list[str]:
    """The facts the calls since the user's message retired without an error."""
    start = max(i for i, m in enumerate(messages) if m["role"] == "user")
    failed = {m.get("tool_call_id") for m in messages[start + 1:]
              if m["role"] == "tool" and (m.get("content") or "").startswith("Error:")}
    retired, held_again = [], set()
    for message in messages[start + 1:]:
        for call in message.get("tool_calls") or []:
            name = call["function"]["name"]
            if name not in ("core_memory_replace", "core_memory_append") or call["id"] in failed:
                continue
            try:
                arguments = json.loads(call["function"].get("arguments") or "{}")
            except ValueError:
                continue
            if name == "core_memory_append":
                held_again.update(member_shares(str(arguments.get("content") or "")))
            elif not arguments.get("new_content") and arguments.get("old_content"):
                retired.append(str(arguments["old_content"]))
    # "Tom works at Globex", retired as the joint fact put back says it again, is no past
    # fact: it is as true as before.
    return [fact for fact in retired if fact not in held_again]


def kept_in_archival_note(messages: list[dict[str, Any]], user_text: str) -> list[str]:
    """For a request to forget, where what it retired still is: archival keeps a retired
    fact as a past one, which a user asking to forget private data must be told, with the
    way to remove it for good."""
    retired = retired_this_turn(messages)
    # "Ignore that, it's fine" (or "..., it's 5678") asks it as "Forget that, ..." does, and
    # "Delete Tom" of a Tom it retired as "Forget Tom" does
    if not any(as_news(s) is None or forgets_the_last(CLAUSE_BREAK.split(s.strip())[0])
               or deleted_name(s, retired) for s in split_sentences(user_text)):
        return []
    if len(retired) == 1 and (retired[0].lstrip().startswith("-")
                              or not retired[0].isprintable()):
        # Typed after /forget, "--erase wipes the disk" would erase "wipes the disk".
        return [f'(offline) I keep "{retired[0]}" in archival as a past fact; to remove it '
                "for good: tiermem forget - with its whole text on standard input."]
    if len(retired) == 1:
        return [f'(offline) I keep "{retired[0]}" in archival as a past fact; to remove it '
                f"for good: /forget {retired[0]} in the chat, or tiermem forget."]
    if retired:
        quoted = "; ".join(f'"{fact}"' for fact in retired)
        return [f"(offline) I keep {quoted} in archival as past facts; to remove one for "
                "good: /forget TEXT in the chat, or tiermem forget."]
    return []
