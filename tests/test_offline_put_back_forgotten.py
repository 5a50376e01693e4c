"""The offline policy never puts back a fact the memory forgot: "Forget that." after a
change, and "back on" after a cancellation, hold again what the user's earlier messages
held, but one forgotten since (/forget, `tiermem forget`) stays forgotten, and its block
on extraction stays too. Stated again by the user, it is no longer forgotten."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from offline_helpers import core_of, said
from test_cli import ROOT, cli_env

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


LISBON = "User lives in Lisbon"
FLIGHT = "User's flight is on Friday"


@pytest.mark.parametrize(("steps", "forgotten"), [
    (["I live in Lisbon.", f"/forget {LISBON}", "I moved to Porto.", "Forget that."], LISBON),
    (["I live in Lisbon.", "I moved to Porto.", f"/forget {LISBON}", "Forget that."], LISBON),
    (["I'm vegan.", "/forget User is vegan", "I'm not vegan anymore.", "Forget that."],
     "User is vegan"),
    (["My flight is on Friday.", "My flight is cancelled now.", f"/forget {FLIGHT}",
      "My flight is back on now."], FLIGHT),
])
def test_a_forgotten_fact_is_not_put_back(memory: HierarchicalMemory, steps: list[str],
                                          forgotten: str) -> None:
    said(memory, *steps)
    assert forgotten not in core_of(memory)
    # No append in the user's stead lifted the block: extraction still leaves it.
    assert memory.forgotten_norms.blocks(forgotten)


def test_a_fact_stated_again_after_forgetting_is_put_back(memory: HierarchicalMemory) -> None:
    said(memory, "I live in Lisbon.", f"/forget {LISBON}", "I live in Lisbon.",
         "I moved to Porto.", "Forget that.")
    assert core_of(memory) == {LISBON: "durable"}


def test_a_time_not_forgotten_is_still_due_when_back_on(memory: HierarchicalMemory) -> None:
    said(memory, "My flight is on Friday.", "My flight is cancelled now.",
         "My flight is back on now.")
    assert FLIGHT in core_of(memory)


def test_a_check_handed_to_the_policy_is_kept_by_the_agent(
        memory: HierarchicalMemory) -> None:
    policy = OfflinePolicy(forgotten=lambda fact: fact == LISBON)
    agent = Agent(memory, policy)
    for message in ("I live in Lisbon.", "I moved to Porto.", "Forget that."):
        agent.step(message)
    assert core_of(memory) == {}


def test_the_piped_chat_does_not_store_a_forgotten_fact_again(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "cli.py", "chat", "--offline", "--embedder", "hashing"],
        cwd=ROOT, env=cli_env(tmp_path), capture_output=True, check=False,
        input=f"I live in Lisbon.\n/forget {LISBON}\nI moved to Porto.\nForget that.\n"
              "/core\n".encode())
    assert done.returncode == 0, done.stderr.decode()
    turns = done.stdout.decode().split("forgotten: 1 fact")
    assert len(turns) == 2
    assert LISBON not in turns[1]
