"""Agent homes: one directory per agent under ``$TIERMEM_HOME`` (default ``~/.tiermem``)."""

from __future__ import annotations

import os
from pathlib import Path

from memory.validation import validate_agent_name

DEFAULT_AGENT = "default"


def tiermem_home() -> Path:
    """The root of all agent homes; ``$TIERMEM_HOME`` overrides ``~/.tiermem``."""
    return Path(os.environ.get("TIERMEM_HOME") or Path.home() / ".tiermem").expanduser()


def agent_home(name: str) -> Path:
    """The directory of agent ``name``; the name is validated so it cannot escape the root."""
    return tiermem_home() / "agents" / validate_agent_name(name)
