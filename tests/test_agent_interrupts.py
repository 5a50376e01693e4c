"""Ctrl-C during a turn: the message is kept, the turn rolls back, memory stays consistent.

Ctrl-C is a real SIGINT here (``signal.raise_signal``), sent from inside the
step being tested, so where it lands is fixed by the test, not by timing.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tiermem.agent.llm import Completion
from tiermem.agent.loop import Agent
from tiermem.agent.scripted import ScriptedModel, call, reply
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.tiers.recall import NewMessage

PASTE = "A long pasted log line about the nightly backup job. " * 1200  # about 60 KB


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def statuses(memory: HierarchicalMemory) -> dict[str, str]:
    return {r["content"]: r["status"] for r in memory.recall.iter_rows() if r["role"] == "user"}


def has_vector(memory: HierarchicalMemory, content: str) -> bool:
    row = next(r for r in memory.recall.iter_rows() if r["content"] == content)
    return row["embedding"] is not None


def ctrl_c() -> None:
    signal.raise_signal(signal.SIGINT)


def test_ctrl_c_while_the_message_is_being_stored_keeps_it_and_cancels_the_turn(
    memory: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = Agent(memory, ScriptedModel([reply("never sent")]))
    store_messages = memory.recall.append_many

    def pressed_while_storing(messages: list[NewMessage], **options: Any) -> list[int]:
        ctrl_c()  # the interrupt lands in the middle of storing the user's message
        return store_messages(messages, **options)

    monkeypatch.setattr(memory.recall, "append_many", pressed_while_storing)
    with pytest.raises(KeyboardInterrupt):
        agent.step(PASTE)
    monkeypatch.undo()
    assert statuses(memory) == {PASTE.strip(): "unanswered"}
    assert has_vector(memory, PASTE.strip())  # embedded after the cancellation
    assert memory.tick == 0  # the turn itself never ran


class InterruptedOnce(HashingEmbedder):
    """An embedder that is interrupted the first time it embeds ``text``."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text, self.interrupted = text, False

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if self.text in texts and not self.interrupted:
            self.interrupted = True
            raise KeyboardInterrupt
        return super().embed_documents(texts)


def test_ctrl_c_while_a_long_paste_is_embedded_keeps_the_message() -> None:
    embedder = InterruptedOnce(PASTE.strip())
    with HierarchicalMemory(None, embedder=embedder) as memory:
        agent = Agent(memory, ScriptedModel([reply("fine")]))
        with pytest.raises(KeyboardInterrupt):
            agent.step(PASTE)
        assert embedder.interrupted
        assert statuses(memory) == {PASTE.strip(): "unanswered"}
        assert has_vector(memory, PASTE.strip())
        assert agent.step("and now?").reply == "fine"
        assert statuses(memory)["and now?"] == "ok"


def test_a_second_ctrl_c_during_the_rollback_waits_for_it(memory: HierarchicalMemory) -> None:
    def interrupted(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        ctrl_c()
        raise AssertionError("Ctrl-C should have stopped the turn")

    agent = Agent(memory, ScriptedModel([
        call("core_memory_append", content="User likes tea", request_heartbeat=True),
        interrupted]))
    pressed = []

    def second_press() -> None:
        if not pressed:
            pressed.append(True)
            ctrl_c()

    # First in line, so an interrupt raised here would skip every other rollback hook.
    memory.store._rollback_hooks.insert(0, second_press)
    with pytest.raises(KeyboardInterrupt):
        agent.step("I like tea")
    assert pressed
    # Every tier reloaded: the fact added by the cancelled turn is gone from memory too.
    assert [f.text for f in memory.core] == []
    assert memory.core.used == 0 and memory.tick == 0
    assert statuses(memory) == {"I like tea": "unanswered"}
    memory.store._rollback_hooks.remove(second_press)
    agent.llm = ScriptedModel([call("core_memory_append", content="User likes tea")])
    agent.step("I like tea, really")
    assert [f.text for f in memory.core] == ["User likes tea"]


def test_ctrl_c_during_the_commit_of_a_finished_turn_does_not_undo_it(
    memory: HierarchicalMemory,
) -> None:
    agent = Agent(memory, ScriptedModel([reply("done")]))
    commits: list[int] = []

    def pressed_at_the_turns_commit() -> None:
        commits.append(memory.tick)
        if len(commits) == 2:  # the first commit stores the message, the second the turn
            ctrl_c()

    memory.store.on_commit(pressed_at_the_turns_commit)
    try:
        result = agent.step("hello")
    finally:
        memory.store._commit_hooks.remove(pressed_at_the_turns_commit)
    assert commits == [0, 1]
    assert result.reply == "done"
    assert statuses(memory) == {"hello": "ok"}
    assert agent.interrupted_at_commit  # held, not forgotten: a piped run stops on it


def test_a_piped_run_stops_on_ctrl_c_pressed_while_a_turn_commits(
    memory: HierarchicalMemory,
) -> None:
    import io

    from rich.console import Console

    from tiermem.agent.repl import INTERRUPTED_AT_COMMIT, ChatRepl

    agent = Agent(memory, ScriptedModel([reply("one"), reply("two")]))
    commits: list[int] = []

    def pressed_at_the_second_turns_commit() -> None:
        commits.append(memory.tick)
        if len(commits) == 4:  # each line commits its message, then its turn: the second's
            ctrl_c()

    errors = io.StringIO()
    repl = ChatRepl(agent, console=Console(file=io.StringIO()), errors=errors)
    memory.store.on_commit(pressed_at_the_second_turns_commit)
    try:
        with pytest.raises(KeyboardInterrupt):  # the CLI's exit 130
            repl.run_piped(["first", "second", "third"])
    finally:
        memory.store._commit_hooks.remove(pressed_at_the_second_turns_commit)
    # The second turn stands, saved; the third line is never read.
    assert statuses(memory) == {"first": "ok", "second": "ok"}
    assert errors.getvalue() == f"tiermem: {INTERRUPTED_AT_COMMIT}\n"


def test_ctrl_c_is_left_alone_when_the_program_handles_it(memory: HierarchicalMemory) -> None:
    seen: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        def pressed(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
            ctrl_c()
            return reply("answered anyway")

        result = Agent(memory, ScriptedModel([pressed])).step("hello")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [signal.SIGINT]
    assert result.reply == "answered anyway"


def test_a_message_left_pending_without_a_vector_gets_one_at_the_next_open(
        tmp_path: Path) -> None:
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as memory:
        # What a turn killed right after storing its message leaves behind.
        memory.recall.append("user", "Is the billing runbook in the wiki?", 1,
                             status="pending", embed=False)
        assert memory.recall.vectors is not None and len(memory.recall.vectors) == 0
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as memory:
        assert statuses(memory) == {"Is the billing runbook in the wiki?": "unanswered"}
        assert has_vector(memory, "Is the billing runbook in the wiki?")
        assert memory.recall.vectors is not None and len(memory.recall.vectors) == 1
        assert memory.diagnostics()["recall"]["without_vectors"] == 0


def test_a_pending_message_gets_a_vector_of_an_embedder_of_another_size(
        tmp_path: Path) -> None:
    # Nothing pins the embedder yet (no passage, no vector), so another one may open the
    # memory; the pending message is embedded with it, at its size.
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder(dim=256)) as memory:
        memory.recall.append("user", "Is the billing runbook in the wiki?", 1,
                             status="pending", embed=False)
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder(dim=64)) as memory:
        assert has_vector(memory, "Is the billing runbook in the wiki?")
        assert memory.diagnostics()["recall"]["without_vectors"] == 0
        assert memory.store.settings.get("embedder_dim") == "64"
