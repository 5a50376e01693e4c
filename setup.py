"""The package list, which pyproject.toml cannot state for this layout.

The repository root is the ``tiermem`` package (``package-dir`` in
pyproject.toml), so its sub-packages install as ``tiermem.memory``,
``tiermem.memory.<sub-package>``, ``tiermem.agent``, ... They are found on disk,
so a new sub-package needs no change here; tests/ and everything else at the
root stay out of the wheel.
"""

import shutil
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

#: The root's packages that install under ``tiermem``.
SUBPACKAGES = ("memory", "agent", "tools", "scenarios", "bench", "evals")


class BuildPackage(build_py):
    """Every module at the root but this file, which is not part of tiermem; and only
    the checkout's files as they are now.

    pip builds in the checkout, and build_py only adds to ``build/lib``: a module
    deleted since an earlier ``pip install .`` (a ``git pull`` later) stayed there and
    was installed again. So the package's copy there is removed before each build (not
    for an editable install, which builds elsewhere and copies nothing of it)."""

    def run(self) -> None:
        if not self.editable_mode:
            shutil.rmtree(Path(self.build_lib) / "tiermem", ignore_errors=True)
        super().run()

    def find_package_modules(self, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        modules = super().find_package_modules(package, package_dir)
        return [m for m in modules if (package, m[1]) != ("tiermem", "setup")]


found = find_packages(include=[*SUBPACKAGES, *(f"{name}.*" for name in SUBPACKAGES)])
setup(packages=["tiermem", *(f"tiermem.{name}" for name in found)],
      cmdclass={"build_py": BuildPackage})
