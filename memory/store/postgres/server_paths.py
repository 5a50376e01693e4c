"""The directories and files around a local PostgreSQL server's data directory: those a
start creates (removed again if it fails), the programs linked or copied beside it, and
which directory above a path its account may not pass through.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
from pathlib import Path


def _missing_directories(path: Path) -> list[Path]:
    """``path`` and those of its parents that do not exist yet, deepest first."""
    missing: list[Path] = []
    for directory in (path, *path.parents):
        if directory.exists():
            break
        missing.append(directory)
    return missing


def _remove_empty(directories: list[Path]) -> None:
    """Remove each of ``directories`` (deepest first) while they are empty."""
    for directory in directories:
        try:
            directory.rmdir()
        except FileNotFoundError:
            continue
        except OSError:  # not empty: nor are the ones above it
            return


def _link_or_copy(source: str, target: str) -> None:
    """A hard link when both paths share a file system (instant, no space), else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _first_closed_parent(path: Path, account: pwd.struct_passwd) -> Path | None:
    """The first directory above ``path`` that ``account`` may not pass through."""
    for parent in reversed(path.parents):
        mode = parent.stat()
        if mode.st_uid == account.pw_uid:
            allowed = mode.st_mode & stat.S_IXUSR
        elif mode.st_gid == account.pw_gid:
            allowed = mode.st_mode & stat.S_IXGRP
        else:
            allowed = mode.st_mode & stat.S_IXOTH
        if not allowed:
            return parent
    return None
