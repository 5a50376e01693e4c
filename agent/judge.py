"""Any chat model as a memory judge (``tiermem.memory.judge.Judge``).

The judge's question goes out as one system and one user message with no
tools, so a model that cannot call tools can still judge. A provider failure
propagates as ``ProviderError``; the memory layer treats any exception from a
judge as a failed judgement and fails closed.
"""

from __future__ import annotations

from tiermem.agent.llm import LLMClient


class ModelJudge:
    """Asks ``client`` each question as a fresh two-message conversation."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    @property
    def name(self) -> str:
        return self.client.name

    def ask(self, system: str, user: str) -> str:
        completion = self.client.complete(
            [{"role": "system", "content": system}, {"role": "user", "content": user}], [])
        return completion.content or ""
