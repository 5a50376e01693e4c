"""The roots of the exceptions tiermem raises to its caller (memory/errors.py gathers them
all): every module defining one builds on these, so none needs to import that module."""

from __future__ import annotations

#: How to get a newer tiermem: it is installed from its checkout, not from a package
#: index, where the name may be another project's.
NEWER_TIERMEM = ("install a newer tiermem the way this one was installed (update the "
                 "checkout and run `python -m pip install .` in it)")


class TiermemError(Exception):
    """Base class of every error tiermem raises on purpose."""


class InvalidInputError(TiermemError, ValueError):
    """Text, arguments or names that tiermem cannot accept as given."""


class MemoryLimitError(TiermemError):
    """An edit that could not fit in core even after eviction; nothing changed."""


class StoreError(TiermemError):
    """The agent home or its database cannot be used as asked; the message says why."""
