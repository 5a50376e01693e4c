"""A path the user gave, with its leading ``~`` expanded as a shell expands it.

Light on purpose (only ``os`` and ``pathlib``): the command line parses its options
with it, before any part of the memory engine is loaded.
"""

from __future__ import annotations

import os
from pathlib import Path


def expanded(path: str | os.PathLike[str]) -> Path:
    """``path`` with a leading ``~`` or ``~USER`` expanded to that home; as given when no
    such home is known (``~nouser/x``) or the name cannot be one (it holds a NUL byte), as
    a shell leaves it, so what opens or writes it names what is missing."""
    try:
        return Path(path).expanduser()
    except (RuntimeError, ValueError):
        return Path(path)
