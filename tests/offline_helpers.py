"""Shared helpers for the offline policy's tests."""

from __future__ import annotations

import json
from typing import Any

from tiermem.agent.llm import Completion
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.memory import HashingEmbedder, HierarchicalMemory


def chat(memory: HierarchicalMemory, *messages: str) -> list[str]:
    """The offline policy's reply to each message, said in turn to one agent."""
    agent = Agent(memory, OfflinePolicy())
    return [agent.step(message).reply or "" for message in messages]


def said(memory: HierarchicalMemory, *steps: str) -> str:
    """Each step said in turn to one agent, but "/forget X", which forgets X in between;
    the last reply."""
    agent = Agent(memory, OfflinePolicy())
    reply = ""
    for step in steps:
        if step.startswith("/forget "):
            assert memory.forget(step.removeprefix("/forget ")).outcome == "matched"
        else:
            reply = agent.step(step).reply or ""
    return reply


def core_of(memory: HierarchicalMemory) -> dict[str, str]:
    """Core's facts, text -> durability."""
    return {f.text: f.durability for f in memory.core}


def core_after(*messages: str) -> list[str]:
    """Core's facts, sorted, once the offline policy has heard each message in turn, in
    a memory of its own."""
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, *messages)
        return sorted(core_of(memory))


class RecordingPolicy(OfflinePolicy):
    """The offline policy, keeping each tool call it made as (name, arguments)."""

    def __init__(self) -> None:
        super().__init__()
        self.made: list[tuple[str, dict[str, Any]]] = []

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        completion = super().complete(messages, tools)
        self.made += [(c.name, json.loads(c.arguments)) for c in completion.tool_calls]
        return completion


def reply_and_core(message: str) -> tuple[str, list[str]]:
    """The offline policy's reply to ``message`` said first, and core's facts, sorted,
    after it."""
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, message)[0]
        return reply, sorted(core_of(memory))


def core_and_reply(*messages: str) -> tuple[list[str], str]:
    """Core's facts, sorted, and the last reply, once the offline policy has heard each
    message in turn, in a memory of its own."""
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, *messages)[-1]
        return sorted(core_of(memory)), reply
