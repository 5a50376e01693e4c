"""One offline policy serving Agents of two memories checks, each turn, what the memory of
the Agent taking it forgot: a fact forgotten in one is put back in the other, where it
was not forgotten, and stays forgotten where it was."""

from __future__ import annotations

from offline_helpers import core_of

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.memory import HashingEmbedder, HierarchicalMemory

LISBON = "User lives in Lisbon"


def test_each_agent_checks_its_own_memory() -> None:
    policy = OfflinePolicy()
    with (HierarchicalMemory(None, embedder=HashingEmbedder()) as forgetting,
          HierarchicalMemory(None, embedder=HashingEmbedder()) as keeping):
        forgetful, keeper = Agent(forgetting, policy), Agent(keeping, policy)
        for message in ("I live in Lisbon.", "I moved to Porto.", "Forget that."):
            forgetful.step(message)
            if message == "I live in Lisbon.":
                assert forgetting.forget(LISBON).outcome == "matched"
            keeper.step(message)
        assert core_of(keeping) == {LISBON: "durable"}
        assert core_of(forgetting) == {}
        assert forgetting.forgotten_norms.blocks(LISBON)

