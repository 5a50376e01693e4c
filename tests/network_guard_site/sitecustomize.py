"""Imported by Python at start-up in every process the test suite starts (conftest puts this
folder first on ``PYTHONPATH``): block every socket that is not loopback, as the tests' own
process does. The guard is tests/network_guard.py, loaded by path so that nothing else of
tests/ lands on the child's ``sys.path``."""

import importlib.util
from pathlib import Path


def _install() -> None:
    path = Path(__file__).resolve().parents[1] / "network_guard.py"
    spec = importlib.util.spec_from_file_location("_tiermem_tests_network_guard", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the tests' network guard from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.install()


_install()
