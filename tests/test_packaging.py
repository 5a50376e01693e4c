"""The distribution installs one top-level package, ``tiermem``, and runs from its own files.

The wheel is built offline with the installed setuptools (a test extra), from a
copy of the checkout so no build/ or egg-info is left behind.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
VERSION = PROJECT["version"]
#: The root's folders and module that install inside ``tiermem``.
SHIPPED = ("memory", "agent", "tools", "scenarios", "bench", "evals", "cli")
_NOT_COPIED = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "*.egg-info",
                                     "__pycache__", ".*_cache", ".hypothesis", "results")


def _pip(*args: str, cwd: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", *args], cwd=cwd,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=_NOT_COPIED)
    _pip("wheel", "--no-deps", "--no-build-isolation", "--no-index", "--quiet",
         "--wheel-dir", str(work / "out"), str(source), cwd=work)
    (built,) = (work / "out").glob("tiermem-*.whl")
    return built



def test_a_module_deleted_since_a_build_is_not_installed_again(tmp_path: Path) -> None:
    """`pip install .` builds in the checkout's build/; a module the checkout no longer
    has (deleted by a `git pull`) must not come back from an earlier build's copy."""
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=_NOT_COPIED)
    gone = source / "memory" / "deleted_since.py"
    gone.write_text("X = 1\n", encoding="utf-8")
    for out in ("first", "second"):
        _pip("wheel", "--no-deps", "--no-build-isolation", "--no-index", "--quiet",
             "--wheel-dir", str(tmp_path / out), str(source), cwd=tmp_path)
        gone.unlink(missing_ok=True)
    (first,), (second,) = ((tmp_path / out).glob("tiermem-*.whl") for out in ("first", "second"))
    assert "tiermem/memory/deleted_since.py" in zipfile.ZipFile(first).namelist()
    assert (source / "build").is_dir()  # built in the checkout, as pip does
    assert "tiermem/memory/deleted_since.py" not in zipfile.ZipFile(second).namelist()

def _packages_on_disk() -> set[str]:
    """Every folder of the shipped packages that holds Python code, as a dotted name."""
    found = {"tiermem"}
    for name in SHIPPED:
        for code in (ROOT / name).rglob("*.py") if (ROOT / name).is_dir() else []:
            relative = code.parent.relative_to(ROOT)
            if "results" not in relative.parts and "__pycache__" not in relative.parts:
                found.add("tiermem." + ".".join(relative.parts))
    return found


def test_wheel_installs_only_the_tiermem_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names} == {
        "tiermem", f"tiermem-{VERSION}.dist-info", f"tiermem-{VERSION}.data"}
    packages = {name.rsplit("/", 1)[0].replace("/", ".") for name in names
                if name.endswith("/__init__.py") or name == "tiermem/__init__.py"}
    assert packages == _packages_on_disk()  # every sub-package on disk, and nothing else
    assert "tiermem/cli.py" in names and "tiermem/__main__.py" in names
    for kept_out in ("tiermem/setup.py", "tiermem/README.md", "tiermem/pyproject.toml"):
        assert kept_out not in names
    assert not [name for name in names if name.startswith(("tiermem/tests/", "tiermem/.ci/"))]


def test_wheel_carries_its_data_and_entry_point(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    assert "tiermem/memory/data/all-MiniLM-L6-v2/tokenizer.json" in names
    for data in ("pii_labelled.jsonl", "starter_rules.yaml"):  # `benchmark --only privacy`
        assert f"tiermem/memory/privacy/data/{data}" in names
    assert "tiermem/SKILL.md" in names
    assert "tiermem/py.typed" in names  # PEP 561: a user's type checker reads our hints
    assert f"tiermem-{VERSION}.data/data/share/tiermem/SKILL.md" in names
    entry_points = archive.read(f"tiermem-{VERSION}.dist-info/entry_points.txt").decode()
    assert "tiermem = tiermem.cli:main" in entry_points


def test_installed_wheel_runs_from_its_own_files(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    _pip("install", "--no-deps", "--no-index", "--quiet", "--target", str(target), str(wheel),
         cwd=tmp_path)
    # PYTHONPATH puts the installed copy ahead of the checkout's editable install.
    env = {**os.environ, "PYTHONPATH": str(target), "TIERMEM_HOME": str(tmp_path / "home")}
    code = (
        "import sys, tiermem\n"
        "from tiermem import Agent, HierarchicalMemory\n"
        "from tiermem.agent.skill_card import skill_file\n"
        "from tiermem.memory.embed.minilm_files import TOKENIZER_SHA256, default_tokenizer_file,"
        " verify_file\n"
        "verify_file(default_tokenizer_file(), TOKENIZER_SHA256, 'tokenizer', 'reinstall')\n"
        "print(tiermem.__file__, default_tokenizer_file(), skill_file(), sep='\\n')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    package, tokenizer, card = (Path(line) for line in done.stdout.splitlines())
    assert package == target / "tiermem" / "__init__.py"
    assert tokenizer.is_relative_to(target / "tiermem" / "memory")
    assert card == target / "tiermem" / "SKILL.md"

    shown = subprocess.run([sys.executable, "-m", "tiermem", "--help"], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert (ROOT / "SKILL.md").read_text(encoding="utf-8") in shown.stdout
    version = subprocess.run([sys.executable, "-m", "tiermem", "--version"], cwd=tmp_path,
                             env=env, capture_output=True, text=True)
    assert version.returncode == 0 and VERSION in version.stdout, version.stderr


def test_importing_tiermem_loads_nothing_until_a_name_is_used(tmp_path: Path) -> None:
    code = (
        "import sys, tiermem\n"
        "assert sorted(m for m in sys.modules if m.startswith('tiermem.')) == [], sys.modules\n"
        "from tiermem import HierarchicalMemory\n"
        "assert 'tiermem.agent' not in sys.modules and 'openai' not in sys.modules\n"
        "from tiermem import Agent\n"
        "from tiermem.agent.loop import Agent as Defined\n"
        "import tiermem.memory\n"
        "assert Agent is Defined and tiermem.__all__ == ['Agent', 'ProviderError', "
        "'ContextOverflowError', *tiermem.memory.__all__]\n"
        "try:\n"
        "    tiermem.no_such_name\n"
        "except AttributeError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "module 'tiermem' has no attribute 'no_such_name'"


def test_every_error_the_api_raises_and_the_version_are_exported() -> None:
    import inspect

    import tiermem
    import tiermem.memory.errors as errors

    raised = {name for name, value in vars(errors).items()
              if inspect.isclass(value) and issubclass(value, errors.TiermemError)}
    assert raised <= set(tiermem.__all__), raised - set(tiermem.__all__)
    assert all(getattr(tiermem, name) is getattr(errors, name) for name in raised)
    # Defined beside what raises it: HierarchicalMemory.write_snapshot, for a file it
    # cannot write.
    from tiermem.memory.output_file import OutputPathError

    assert tiermem.OutputPathError is OutputPathError and "OutputPathError" in tiermem.__all__
    assert tiermem.__version__ == VERSION
    assert {"StoreClosedError", "__version__", "HierarchicalMemory"} <= set(dir(tiermem))
    from tiermem.agent.context import ContextOverflowError
    from tiermem.agent.errors import ProviderError

    # What Agent.step raises besides the memory's errors.
    assert (tiermem.ProviderError, tiermem.ContextOverflowError) == (
        ProviderError, ContextOverflowError)


def test_the_tests_refuse_to_check_another_tiermem(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere" / "tiermem"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(other.parent)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "--collect-only", "-q", str(ROOT / "tests" / "test_dates.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert f"`import tiermem` loads {other}" in done.stderr
    assert "python -m pip install -e '.[test]'" in done.stderr


def _bare_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        found += [f"{path.relative_to(ROOT)}:{node.lineno}: {module}" for module in modules
                  if module.split(".")[0] in SHIPPED]
    return found


def test_code_imports_the_package_by_its_installed_name() -> None:
    # From a checkout `import memory` still resolves (the root is on sys.path),
    # but an installed tiermem has no top-level `memory`.
    files = [ROOT / "cli.py", ROOT / "__init__.py", ROOT / "__main__.py",
             *(ROOT / "tests").rglob("*.py")]
    files += [code for name in SHIPPED if (ROOT / name).is_dir()
              for code in (ROOT / name).rglob("*.py") if "results" not in code.parts]
    bare = [line for path in files for line in _bare_imports(path)]
    assert bare == [], "import these as tiermem.<name>:\n" + "\n".join(bare)
