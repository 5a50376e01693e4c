"""Shared pieces of the LLM client tests: a prompt with one tool, a client on the fake
server that records its sleeps, and a loopback port nothing listens on."""

from __future__ import annotations

import socket
from typing import Any

from fake_openai import FakeOpenAIServer

from tiermem.agent.openai_client import OpenAIClient

MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a memory agent."},
    {"role": "user", "content": "I like green tea."},
]
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "core_memory_append",
            "description": "Add a fact to core memory.",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
        },
    }
]


def make_client(server: FakeOpenAIServer, sleeps: list[float], **kwargs: Any) -> OpenAIClient:
    kwargs.setdefault("max_retries", 3)
    return OpenAIClient("fake-model", base_url=server.base_url, sleep=sleeps.append, **kwargs)


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
