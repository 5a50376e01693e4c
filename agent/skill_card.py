"""What ``tiermem --help`` and ``--version`` print: the command list, the skill card, the version.

The skill card (SKILL.md) sits beside cli.py, in a checkout and in the installed
package (package data). An install also copies it to a data directory
(``[tool.setuptools.data-files]`` in pyproject.toml) for readers outside Python;
that place depends on how tiermem was installed, so every place an installer may
have put it is looked at.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

#: Where cli.py, SKILL.md and (in a checkout) pyproject.toml are.
TOP_LEVEL = Path(__file__).resolve().parent.parent


def skill_candidates(module_dir: Path | None = None) -> list[Path]:
    """Where SKILL.md may be: beside cli.py (a checkout), then each install location.

    ``pip install`` puts it in ``<prefix>/share/tiermem``; ``--user`` in the user
    base (``site.USER_BASE``, ``$PYTHONUSERBASE``); other schemes name their
    data directory in ``sysconfig``; the installed file list has the final word.
    """
    import site
    import sysconfig

    here = module_dir or TOP_LEVEL
    roots: list[str] = [sys.prefix, site.getuserbase(), sysconfig.get_path("data")]
    for scheme in sysconfig.get_scheme_names():
        try:
            roots.append(sysconfig.get_path("data", scheme))
        except KeyError:  # a scheme without a data path
            continue
    candidates = [here / "SKILL.md"]
    candidates += [Path(root, "share", "tiermem", "SKILL.md") for root in dict.fromkeys(roots)]
    candidates += _recorded_skill_files()
    return candidates


def _recorded_skill_files() -> list[Path]:
    from importlib import metadata

    try:
        files = metadata.distribution("tiermem").files or []
    except metadata.PackageNotFoundError:
        return []
    return [Path(str(f.locate())) for f in files if f.name == "SKILL.md"]


def skill_file(module_dir: Path | None = None) -> Path | None:
    """The first SKILL.md found (see ``skill_candidates``), or None."""
    return next((p for p in skill_candidates(module_dir) if p.is_file()), None)


def version() -> str:
    """The version in pyproject.toml beside cli.py (a checkout), else the installed one."""
    pyproject = TOP_LEVEL / "pyproject.toml"
    if pyproject.is_file():
        import tomllib

        return str(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"])
    from importlib import metadata

    return metadata.version("tiermem")


def command_list(commands: Mapping[str, str], exit_codes: str) -> str:
    """The short list ``tiermem --help`` starts with: one line per command."""
    width = max(len(name) for name in commands)
    lines = ["usage: tiermem COMMAND [OPTIONS]   (tiermem COMMAND --help for its options)",
             "", "commands:"]
    lines += [f"  {name:{width}}  {about}" for name, about in commands.items()]
    lines += ["", f"options: --help, --version; {exit_codes}", ""]
    return "\n".join(lines) + "\n"
