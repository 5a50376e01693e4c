"""SQLite says "unable to open database file" of any file of a memory it cannot open: the
error at open names the file and what is wrong with it, not a schema upgrade. A directory
where its -shm goes makes it refuse writes instead: that one is named too."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tiermem.memory.store.sqlite.errors import opening_error, translate


def _cannot_open() -> sqlite3.OperationalError:
    exc = sqlite3.OperationalError("unable to open database file")
    exc.sqlite_errorcode = sqlite3.SQLITE_CANTOPEN  # type: ignore[attr-defined]
    return exc


def _dangling_wal(database: Path) -> str:
    wal = database.with_name("memory.sqlite3-wal")
    wal.symlink_to(database.parent / "unmounted" / "wal")
    return (f"{wal} (a link to {database.parent / 'unmounted' / 'wal'}) leads to no file "
            f"(on a disk not mounted?); nothing was changed. Make the file it leads to")


def _shm_directory(database: Path) -> str:
    shm = database.with_name("memory.sqlite3-shm")
    shm.mkdir()
    return f"{shm} is not a file; nothing was changed. Move it out of the way (`mv {shm} "


def _wal_beside_a_linked_database(database: Path) -> str:
    # SQLite keeps the -wal beside the file the database's link leads to.
    real = database.parent / "elsewhere" / "kept.sqlite3"
    real.parent.mkdir()
    real.touch()
    database.unlink()
    database.symlink_to(real)
    (real.parent / "kept.sqlite3-wal").mkdir()
    return f"{real.parent / 'kept.sqlite3-wal'} is not a file"


def _nothing_to_tell(database: Path) -> str:
    return ("SQLite could not open it or its -wal or -shm file beside it; nothing was "
            "changed. Check that the agent home and its files are this user's")


def _wal_linked_to_a_file(database: Path) -> str:
    kept = database.parent / "kept" / "log"
    kept.parent.mkdir()
    kept.write_bytes(b"log" * 100)
    wal = database.with_name("memory.sqlite3-wal")
    wal.symlink_to(kept)
    # Before: "SQLite could not open it or its -wal or -shm file beside it; ... Check that
    # the agent home and its files are this user's".
    return (f"{wal} (a link to {kept}): SQLite opens no -wal or -shm file through a link; "
            f"nothing was changed. If the file it leads to is this memory's, move it here in "
            f"the link's place (`mv {kept} {wal}`); if not, remove the link (`rm {wal}`)")


@pytest.mark.parametrize("arrange", [_dangling_wal, _shm_directory, _wal_linked_to_a_file,
                                     _wal_beside_a_linked_database, _nothing_to_tell])
def test_a_file_sqlite_cannot_open_is_named_with_what_to_do(
        tmp_path: Path, arrange: Callable[[Path], str]) -> None:
    database = tmp_path / "memory.sqlite3"
    database.touch()
    expected = arrange(database)
    said = str(opening_error(_cannot_open(), database))
    # Before: "...; an upgrade of its schema stops at the last step that completed, ...".
    assert said.startswith(f"cannot open the memory database {database} (unable to open "
                           f"database file): {expected}"), said
    assert "upgrade" not in said and said.endswith(", then try again")


def _write_refused_with_a_shm_directory(home: Path) -> object:
    """What a write SQLite refused says, a directory lying where its -shm file goes."""
    database = home / "memory.sqlite3"
    database.touch()
    (home / "memory.sqlite3-shm").mkdir()
    exc = sqlite3.OperationalError("attempt to write a readonly database")
    exc.sqlite_errorcode = sqlite3.SQLITE_READONLY  # type: ignore[attr-defined]
    return translate(exc, database)


def test_a_write_refused_for_a_directory_in_place_of_the_shm_file_names_it(
        tmp_path: Path) -> None:
    # Before: only "attempt to write a readonly database", with every file writable.
    assert "(attempt to write a readonly database; memory.sqlite3-shm is not a file: move " \
        "it out of the agent home)" in str(_write_refused_with_a_shm_directory(tmp_path))


@pytest.mark.parametrize("odd", ["directory", "dangling link", "link to a file"])
def test_a_read_only_open_names_a_wal_that_is_no_file(tmp_path: Path, odd: str) -> None:
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.errors import StoreError
    from tiermem.memory.hierarchy import HierarchicalMemory
    from tiermem.memory.store.sqlite.store import SQLiteStore

    home = tmp_path / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes tea")
    wal = home / "memory.sqlite3-wal"
    wal.unlink(missing_ok=True)
    (home / "memory.sqlite3-shm").unlink(missing_ok=True)
    if odd == "directory":
        wal.mkdir()
    elif odd == "dangling link":
        wal.symlink_to(tmp_path / "unmounted" / "wal")
    else:  # Before: said to hold changes SQLite cannot read in a read-only home.
        (tmp_path / "log").write_bytes(b"log" * 100)
        wal.symlink_to(tmp_path / "log")
    # Before: a directory was said to hold changes in a read-only home, and a link leading
    # nowhere was passed over, the memory read without what the -wal may hold.
    with pytest.raises(StoreError) as caught:
        SQLiteStore(home, read_only=True).close()
    said = str(caught.value)
    assert f"{wal} " in said and "read-only" not in said, said
    assert {"directory": "is not a file", "dangling link": "leads to no file",
            "link to a file": "opens no -wal or -shm file through a link"}[odd] in said, said


def _closed_home(tmp_path: Path) -> Path:
    """A memory holding one fact, with no -wal or -shm beside its database."""
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.hierarchy import HierarchicalMemory

    home = tmp_path / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes tea")
    for gone in ("-wal", "-shm"):
        (home / f"memory.sqlite3{gone}").unlink(missing_ok=True)
    return home


def _home_with_sidecar_linked(tmp_path: Path, end: str, hard: bool) -> Path:
    """A memory holding one fact whose -wal or -shm (``end``) is the only one, a link to an
    empty file elsewhere."""
    import os

    home = _closed_home(tmp_path)
    (tmp_path / "kept").touch()
    link = home / f"memory.sqlite3{end}"
    os.link(tmp_path / "kept", link) if hard else link.symlink_to(tmp_path / "kept")
    return home


def _facts_read(home: Path) -> list[str]:
    from tiermem.memory.store.sqlite.store import SQLiteStore

    store = SQLiteStore(home, read_only=True)
    try:
        return [fact.text for fact in store.facts.all()]
    finally:
        store.close()


@pytest.mark.parametrize("sidecar", ["-shm", "-wal"])
def test_a_home_that_cannot_be_changed_is_read_past_a_sidecar_linked_to_a_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sidecar: str) -> None:
    from tiermem.memory.store.sqlite import connection

    home = _home_with_sidecar_linked(tmp_path, sidecar, hard=False)
    # As on a read-only file system: the link can be neither moved nor removed.
    monkeypatch.setattr(connection, "_may_change", lambda directory: False, raising=False)
    # Before: refused, saying to mv or rm the link, which cannot be done there; the database
    # alone holds the memory, as when SQLite cannot create a -shm in a read-only home.
    assert _facts_read(home) == ["User likes tea"]


def test_a_write_refused_for_a_directory_in_place_of_the_shm_file_blames_no_permission(
        tmp_path: Path) -> None:
    import argparse

    from tiermem.agent.store_errors import cli_message
    from tiermem.memory.store.sqlite.errors import UnwritableMemoryError

    refused = _write_refused_with_a_shm_directory(tmp_path)
    assert isinstance(refused, UnwritableMemoryError)
    args = argparse.Namespace(command="config", agent="ada", store=None)
    # Before: "...: this user may not write the files of ..., or the file system holding
    # them is read-only; ... (chmod u+w, ...)", and the library's "it is open read-only".
    for said in (str(refused), cli_message(refused, args)):
        assert "move it out of the agent home); nothing was changed. Once it is moved, try " \
            "again" in said, said
        assert "chmod" not in said and "read-only" not in said and "read_only" not in said
    assert cli_message(refused, args).endswith(
        "; meanwhile, to read the memory, use `tiermem diagnostics --agent ada`")


@pytest.mark.parametrize("end", ["-wal", "-shm"])
def test_a_wal_or_shm_that_is_a_hard_link_is_refused_before_sqlite_writes_through_it(
        tmp_path: Path, end: str) -> None:
    import os
    import subprocess

    from tiermem.memory.errors import StoreError
    from tiermem.memory.store.sqlite.store import SQLiteStore

    home = tmp_path / "ada"
    SQLiteStore(home).close()
    kept = b"someone's notes\n" * 64
    other = tmp_path / "notes.txt"
    other.write_bytes(kept)
    os.link(other, home / f"memory.sqlite3{end}")
    # Before: both opens went ahead; SQLite wrote its log (-wal) or index (-shm, even to
    # read) through the link into notes.txt.
    for read_only in (False, True):
        with pytest.raises(StoreError) as caught:
            SQLiteStore(home, read_only=read_only).close()
        said = str(caught.value)
        assert said.startswith(f"{home / f'memory.sqlite3{end}'} is a hard link (the file has "
                               f"another name, as `ln` or `cp -al` leave it): SQLite would "
                               f"write through it"), said
        assert other.read_bytes() == kept
    advice = said.partition("(`")[2].partition("`)")[0]
    subprocess.run(advice, shell=True, check=True)
    SQLiteStore(home).close()
    assert other.read_bytes() == kept


@pytest.mark.parametrize("end", ["-wal", "-shm"])
def test_a_hard_linked_wal_or_shm_on_a_read_only_file_system_is_read_past(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, end: str) -> None:
    import os

    home = _home_with_sidecar_linked(tmp_path, end, hard=True)
    # As on a read-only file system, where nothing under the home can be written (the
    # tests may run as root, whom modes do not stop).
    real_access = os.access

    def no_writes(path: object, mode: int, *args: object, **kwargs: object) -> bool:
        if mode & os.W_OK and str(path).startswith(str(home)):
            return False
        return real_access(path, mode, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", no_writes)
    # Before: refused as a file SQLite would write through, with cp and mv as the fix, which
    # cannot be done there; nothing can be written through it.
    assert _facts_read(home) == ["User likes tea"]


def test_a_database_that_is_a_hard_link_is_refused_for_writing_and_read_as_it_is(
        tmp_path: Path) -> None:
    import os
    import subprocess

    from tiermem.memory.errors import StoreError
    from tiermem.memory.store.sqlite.store import SQLiteStore

    home = _closed_home(tmp_path)
    database = home / "memory.sqlite3"
    backup = tmp_path / "backup.sqlite3"
    os.link(database, backup)  # taken for a backup
    kept = backup.read_bytes()
    # Before: the open went ahead, and every write changed backup.sqlite3 with it.
    with pytest.raises(StoreError) as caught:
        SQLiteStore(home).close()
    said = str(caught.value)
    assert said.startswith(f"{database} is a hard link (the file has another name, as `ln` "
                           f"or `cp -al` leave it): every write would change it under the "
                           f"other names too, and SQLite keeps a -wal per name"), said
    # Before: the reason was only that the other names change; what to do did not say to
    # close the sessions first, nor that the other names are left as they are.
    assert "can be damaged (SQLite names multiple links to a database" in said, said
    assert "With no session open" in said and "leaves the other names the file" in said
    assert backup.read_bytes() == kept
    assert _facts_read(home) == ["User likes tea"]  # reading writes nothing to it
    subprocess.run(said.partition("(`")[2].partition("`)")[0], shell=True, check=True)
    SQLiteStore(home).close()
    assert backup.read_bytes() == kept and os.stat(database).st_nlink == 1


def test_a_hard_linked_wal_this_user_may_not_write_in_a_home_it_may_change_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import stat

    from tiermem.memory.errors import StoreError
    from tiermem.memory.store.sqlite.store import SQLiteStore

    home = _home_with_sidecar_linked(tmp_path, "-wal", hard=True)
    kept = tmp_path / "kept"
    kept.chmod(0o400)
    real_access = os.access

    def as_its_owner(path: object, mode: int, *args: object, **kwargs: object) -> bool:
        # Its mode stops this user, as it stops anyone but root (the tests may run as root).
        if mode & os.W_OK and os.path.samefile(str(path), kept):
            return False
        return real_access(path, mode, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", as_its_owner)
    # Before: the open gave it the database's mode (0600) and SQLite wrote its log into it.
    with pytest.raises(StoreError, match="is a hard link"):
        SQLiteStore(home).close()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o400 and kept.stat().st_size == 0
