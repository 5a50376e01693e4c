"""tiermem: a local-first agent runtime with core, recall and archival memory.

``from tiermem import HierarchicalMemory, Agent`` is the public entry point (with
``ProviderError`` and ``ContextOverflowError``, which ``Agent.step`` raises);
every name ``tiermem.memory`` exports (its errors, ``MemoryConfig``, the
embedders, ``Fact``, ``Hit``, ``SearchResult``) is here too, and ``__version__``. They are imported
on first use, so ``import tiermem`` loads nothing and ``import tiermem.memory``
does not load the agent or its model client.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tiermem.agent.context import ContextOverflowError as ContextOverflowError
    from tiermem.agent.errors import ProviderError as ProviderError
    from tiermem.agent.loop import Agent as Agent
    from tiermem.memory import *  # noqa: F403  (the names in tiermem.memory.__all__)

#: The agent's names, and the errors ``Agent.step`` raises, by the module defining each.
_AGENT_NAMES = {"Agent": "tiermem.agent.loop", "ProviderError": "tiermem.agent.errors",
                "ContextOverflowError": "tiermem.agent.context"}


def __getattr__(name: str) -> Any:
    if name in _AGENT_NAMES:
        value = getattr(importlib.import_module(_AGENT_NAMES[name]), name)
    elif name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("tiermem")
        except PackageNotFoundError:  # a source tree that was never installed
            value = "0+unknown"
    elif name.startswith("__") and name != "__all__":
        # Introspection (``__wrapped__``, ``__test__``, ...) must not import anything.
        raise AttributeError(f"module 'tiermem' has no attribute {name!r}")
    else:
        memory = importlib.import_module("tiermem.memory")
        if name == "__all__":
            return [*_AGENT_NAMES, *memory.__all__]
        if name not in memory.__all__:
            raise AttributeError(f"module 'tiermem' has no attribute {name!r}")
        value = getattr(memory, name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__getattr__("__all__"), "__version__"})
