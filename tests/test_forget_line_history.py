"""A /forget line refused as a usage error leaves the prompt history too: the words after it
may be the text its user meant to forget."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from tests.test_chat_history import run_chat
from tiermem.agent.chat_history import chat_history
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize("keep", [True, False], ids=["stored", "--no-history"])
def test_a_forget_line_refused_as_a_usage_error_leaves_the_history(
        tmp_path: Path, keep: bool) -> None:
    typed = ("/core\r/forget --erase-forgotten my PIN is 8675309\r"
             "/FORGET --ERASE-FORGOTTEN my code is 4417\r/forget --erase-forgotten\r\x04")
    with HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder()) as memory:
        history = chat_history(None, memory.prompt_history, keep, io.StringIO())
        errors = io.StringIO()
        run_chat(memory, history, typed, errors)
        assert errors.getvalue().count("usage: /forget --erase-forgotten") == 2

        async def lines() -> list[str]:
            return [line async for line in history.load()]

        # The command alone holds no text: the up arrow may bring it back.
        assert asyncio.run(lines()) == ["/forget --erase-forgotten", "/core"]
        assert memory.prompt_history.lines() == (
            ["/core", "/forget --erase-forgotten"] if keep else [])
