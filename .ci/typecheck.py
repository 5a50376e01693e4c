"""Type-check tiermem under its installed name: ``python .ci/typecheck.py [MYPY OPTIONS]``.

The repository root is the ``tiermem`` package, so mypy has to see it as a
directory named ``tiermem``: the checkout's own directory may have any name
(even one with dots), and mypy cannot follow the import hook of an editable
install. This links ``tiermem`` to the checkout from a temporary directory and
runs ``mypy -p tiermem`` there, with the configuration in pyproject.toml.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def mypy_command() -> list[str]:
    beside = Path(sys.executable).with_name("mypy")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("mypy")
    if found is None:
        sys.exit("mypy is not installed; install the test extras: pip install -e '.[test]'")
    return [found]


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="tiermem-typecheck-") as workdir:
        (Path(workdir) / "tiermem").symlink_to(ROOT, target_is_directory=True)
        command = [*mypy_command(), "--config-file", str(ROOT / "pyproject.toml"),
                   "--cache-dir", str(ROOT / ".mypy_cache"), "-p", "tiermem", *argv]
        return subprocess.run(command, cwd=workdir, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
