"""The ``backend`` fixture: every test that takes it runs once per registered backend
(tests/backends.py), and is skipped on a backend that cannot run here."""

from __future__ import annotations

import pytest
from backends import BACKENDS, Backend, unavailable


@pytest.fixture(scope="session", params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Backend:
    # Session-scoped, so property tests (hypothesis) may take it: each memory or home it
    # hands out is new, so nothing is shared between examples.
    name: str = request.param
    reason = unavailable(name)
    if reason is not None:
        pytest.skip(f"{name} backend unavailable: {reason}")
    return BACKENDS[name](tmp_path_factory.mktemp(f"backend-{name}"), request.getfixturevalue)
