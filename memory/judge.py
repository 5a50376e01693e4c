"""The judge: a language model asked one bounded question, answering in text.

Forgetting (which stored items a request targets) and the privacy policies
(whether a text may be stored or shown) can ask a model to decide. The memory
layer knows nothing of agents or model clients, so it asks through this
protocol; ``tiermem.agent.judge.ModelJudge`` adapts any chat model to it, and
tests pass a plain function.

A judge may raise any exception or answer nonsense: every caller parses the
answer itself and fails closed (deletes nothing, stores or shows nothing)
when the answer is not exactly what it asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable


@runtime_checkable
class Judge(Protocol):
    """Answers ``user`` under the instructions in ``system``, as plain text."""

    def ask(self, system: str, user: str) -> str:
        """The model's answer. Raises when the model cannot be reached."""
        ...


class FunctionJudge:
    """A judge backed by a function ``(system, user) -> answer``; for tests and scripts."""

    def __init__(self, answer: Callable[[str, str], str]) -> None:
        self._answer = answer
        #: Every ``(system, user)`` pair asked, in order.
        self.asked: list[tuple[str, str]] = []

    def ask(self, system: str, user: str) -> str:
        self.asked.append((system, user))
        return self._answer(system, user)
