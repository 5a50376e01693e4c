"""Any chat model as a memory judge (``tiermem.memory.judge.Judge``).

The judge's question goes out as one system and one user message with no
tools, so a model that cannot call tools can still judge. A provider failure
propagates as ``ProviderError``; the memory layer treats any exception from a
judge as a failed judgement and fails closed, and keeps only the error's type
(its audit must not hold what a server echoed back). The judge keeps the
failure itself, so the command that asked can say what went wrong with the
model and what to do.
"""

from __future__ import annotations

from tiermem.agent.command_hints import hint_for
from tiermem.agent.errors import ProviderError
from tiermem.agent.llm import LLMClient


class ModelJudge:
    """Asks ``client`` each question as a fresh two-message conversation."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self._failure: ProviderError | None = None

    @property
    def name(self) -> str:
        return self.client.name

    def ask(self, system: str, user: str) -> str:
        self._failure = None
        try:
            completion = self.client.complete(
                [{"role": "system", "content": system}, {"role": "user", "content": user}], [])
        except ProviderError as exc:
            self._failure = exc
            raise
        return completion.content or ""

    def take_failure(self) -> ProviderError | None:
        """The failure of the last question asked, if it failed (and forget it)."""
        failure, self._failure = self._failure, None
        return failure


def judge_failure(judge: object, command: str | None = None) -> str | None:
    """What went wrong with ``judge``'s model when it was last asked, and what to do about
    it, for the user of the command ``command`` (None: the chat), or None (another kind of
    judge, or no failure)."""
    failure = judge.take_failure() if isinstance(judge, ModelJudge) else None
    if failure is None:
        return None
    hint = f"; {hint_for(failure.hint, command)}" if failure.hint else ""
    return f"model error: {failure}{hint}"
