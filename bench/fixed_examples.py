"""Hypothesis examples that depend only on the seed, not on which modules are loaded.

Hypothesis mixes into its examples literals it gathers from every local module
in ``sys.modules`` (for tiermem, every tiermem module and test file imported so
far). A fixed seed, or ``derandomize=True``, then drew other examples once
another test file, fault class or calling script had loaded more modules, or
once any source line changed. No setting turns the gathering off, so
``without_local_constants`` replaces Hypothesis's lookup with an empty one for
as long as it is active. The fault harness (bench/fault_fuzz.py) and the test
suite (tests/conftest.py) both draw through it.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator
from typing import Any

#: Where Hypothesis keeps the lookup; a release that renames it must not go unnoticed.
_PROVIDERS = "hypothesis.internal.conjecture.providers"
_LOOKUP = "_get_local_constants"
_CACHE = "CONSTANTS_CACHE"


class UnknownHypothesisError(RuntimeError):
    """This Hypothesis gathers local literals somewhere the replacement cannot reach."""


@contextlib.contextmanager
def without_local_constants() -> Iterator[None]:
    """Draw no literals from loaded modules while active; Hypothesis's own constants stay."""
    if importlib.util.find_spec("hypothesis.internal.constants_ast") is None:
        # A Hypothesis from before the gathering existed: its examples already
        # depend on the seed alone.
        yield
        return
    from hypothesis.internal.conjecture import providers
    from hypothesis.internal.constants_ast import Constants

    lookup = getattr(providers, _LOOKUP, None)
    cache: Any = getattr(getattr(providers, _CACHE, None), "cache", None)
    if lookup is None or cache is None:
        # Doing nothing here would let examples drift again without a sign.
        raise UnknownHypothesisError(_unknown_version_message())
    # The cache holds the literals already filtered for each kind of draw: drop them both ways.
    cache.clear()
    setattr(providers, _LOOKUP, Constants)
    try:
        yield
    finally:
        setattr(providers, _LOOKUP, lookup)
        cache.clear()


def _unknown_version_message() -> str:
    import hypothesis

    return (f"Hypothesis {hypothesis.__version__} has no {_PROVIDERS}.{_LOOKUP} (or no "
            f"{_CACHE} beside it), which tiermem replaces so that a seed draws the same "
            f"examples whatever modules are loaded; install a Hypothesis that has both "
            f"(6.170 does: python -m pip install 'hypothesis==6.170.*'), or update "
            f"tiermem/bench/fixed_examples.py for this one")
