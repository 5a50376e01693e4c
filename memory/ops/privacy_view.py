"""What the privacy policy lets a ``HierarchicalMemory`` keep and show: ``retained``,
``set_retention_policy`` and ``core_shown`` (the facade binds these as its methods).

They read the memory through ``PrivateMemory``, the part of it they use, so this module
does not import the facade that imports it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tiermem.memory.errors import InvalidConfigError, InvalidInputError
from tiermem.memory.ops.protocols import StoredMemory
from tiermem.memory.ops.writes import masked
from tiermem.memory.privacy.guard import PrivacyGuard
from tiermem.memory.tiers.core import CoreTier
from tiermem.memory.types import Fact


class PrivateMemory(StoredMemory, Protocol):
    """What the privacy entry points use of a memory (``HierarchicalMemory``)."""

    @property
    def core(self) -> CoreTier:
        ...

    @property
    def privacy(self) -> PrivacyGuard | None:
        ...


def retained(memory: PrivateMemory, text: str) -> str:
    """``text`` as memory may keep it: what the privacy policy drops is withheld."""
    if not isinstance(text, str):  # without a policy, it would come back unchecked
        raise InvalidInputError(f"text must be a string, got {type(text).__name__}")
    return masked(memory.privacy, text).text


def set_retention_policy(memory: PrivateMemory, policies: Sequence[str]) -> None:
    """Replace the retention layer's active policy statements (never appends).

    See ``memory.privacy.guard.PrivacyGuard.set_retention_policy``; a memory opened
    without a privacy policy raises InvalidConfigError.
    """
    if memory.privacy is None:
        raise InvalidConfigError(
            "this memory has no privacy policy to change: open it with one, "
            "HierarchicalMemory(..., privacy=load_policy(path)) (load_policy is in "
            "tiermem.memory.privacy)",
            ("privacy",))
    memory.privacy.set_retention_policy(policies)


def texts_shown(memory: PrivateMemory, texts: Sequence[str], request: str = "") -> list[str]:
    """Each of ``texts`` (stored messages read back, say) as a prompt may show it for
    ``request``: one the privacy policy's recall layer withholds as ``[withheld:
    CATEGORY]``, as core's facts show. Text stored before the policy was given is
    screened on the way out like any other."""
    # Checked with no policy too: a str would come back as its characters, and a code that
    # works until a policy is given would then fail inside the rules.
    if isinstance(texts, str) or not isinstance(texts, Sequence) or not all(
            isinstance(text, str) for text in texts):
        raise InvalidInputError("texts must be a list of strings, like ['I live in Porto']")
    _check_request(request)
    if memory.privacy is None or not texts:
        return list(texts)
    return memory.privacy.text_view(request, texts)


def core_shown(memory: PrivateMemory, request: str = "") -> list[tuple[Fact, str]]:
    """Core's facts with the text the prompt may show for ``request`` (the current
    query): a fact the privacy policy withholds shows as ``[withheld: CATEGORY]``."""
    _check_request(request)
    facts = list(memory.core)
    if memory.privacy is None:
        return [(f, f.text) for f in facts]
    return list(zip(facts, memory.privacy.core_view(request, facts), strict=True))


def _check_request(request: object) -> None:
    if not isinstance(request, str):
        raise InvalidInputError(f"request must be a string (the current query, or '' for "
                                f"none), got {type(request).__name__}")
