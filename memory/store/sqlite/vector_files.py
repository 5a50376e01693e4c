"""A FAISS index's files beside the database, and when they may be trusted.

``archival.faiss`` (or ``recall.faiss``) holds the float index, ``.sq8`` its
8-bit copy, ``.hnsw`` its graph, and ``.json`` the sidecar that vouches for
them: the database's ``store_id``, the embeddings' generation when they were
saved, and a sha256 of each file. Each file is renamed into place whole and
the sidecar last, so a crash in between leaves checksums that do not match
(or, on the first save, no sidecar) and the next open rebuilds instead of
trusting the files. A part that is missing, damaged or holds other rows is
built again; nothing is ever answered from a file that does not match the
database.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

import faiss
import numpy as np

from tiermem.memory.store.sqlite.graph import Graph
from tiermem.memory.store.sqlite.index_io import write_index
from tiermem.memory.store.sqlite.prefilter import Prefilter

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.vectors import FaissIndex

log = logging.getLogger(__name__)

OUT_OF_DATE = "the file is out of date"
#: The index files hold every vector of the memory: readable by their owner only, as the
#: database is (memory/store/sqlite/connection.py), whatever the umask.
PRIVATE_FILE = 0o600


def load_saved(index: FaissIndex) -> bool:
    """Take ``index``'s saved files in place of a rebuild, if the sidecar vouches for them
    and they hold the database's rows; False (with the reason logged) when they do not."""
    assert index.file is not None
    sidecar = index.file.with_suffix(".json")
    reading = sidecar
    try:
        info = json.loads(sidecar.read_text())
        if not isinstance(info, dict):
            raise ValueError("the sidecar is not a JSON object")
        reading = index.file
        problem = _sidecar_problem(index, info)
        if problem is not None:
            # Out of date is expected after a crash, and files an older tiermem saved after
            # an upgrade; damage or another database is not.
            (log.info if problem in (OUT_OF_DATE, OLDER_FILE) else log.warning)(
                "rebuilding %s index: %s", index.table, problem)
            return False
        saved = faiss.read_index(str(index.file))
    except (OSError, ValueError, RuntimeError) as exc:
        if isinstance(exc, FileNotFoundError) and reading == sidecar:
            # The sidecar is renamed into place whole and last: a file without one was
            # left by a save that did not finish, as after a crash; that is expected.
            if index.file.exists():
                log.info("rebuilding %s index: %s has no sidecar (the save that wrote it "
                         "did not finish)", index.table, index.file)
        elif index.file.exists() or sidecar.exists():
            log.warning("rebuilding %s index: cannot read %s (%s)", index.table, reading, exc)
        return False
    if saved.ntotal != index.stored_count() or saved.d != index.dim:
        log.info("rebuilding %s index: %s", index.table, OUT_OF_DATE)
        return False
    # read_index already returns the concrete class and owns it; a
    # downcast_index wrapper would not, and the index would be freed under it.
    if not isinstance(saved, faiss.IndexIDMap2):
        return False
    index.index = saved
    state = info.get("prefilter")
    copy = index.file.with_suffix(".sq8")
    digest = file_sha256(copy) if isinstance(state, dict) else None
    if isinstance(state, dict) and digest is not None and state.get("sha256") == digest:
        prefilter = Prefilter.load(copy, state)
        if prefilter is not None and len(prefilter) == saved.ntotal:
            index.prefilter = prefilter
    index.graph = _saved_graph(index, info.get("graph"))
    return True


def _saved_graph(index: FaissIndex, state: object) -> Graph | None:
    """The saved graph if its sidecar entry vouches for it and it holds exactly the
    index's rows; else None, and a search that needs one builds it again."""
    assert index.file is not None
    path = index.file.with_suffix(".hnsw")
    if not isinstance(state, dict) or state.get("sha256") != file_sha256(path):
        if isinstance(state, dict):
            log.warning("rebuilding the %s graph: %s is damaged or missing", index.table, path)
        return None
    graph = Graph.load(path, state)
    if graph is None or not np.array_equal(np.sort(graph.live_ids()), np.sort(index.ids())):
        log.warning("rebuilding the %s graph: %s holds other rows", index.table, path)
        return None
    return graph


#: Why the files an older tiermem saved are rebuilt once after an upgrade: they cannot
#: be matched to their database, whose id (``SQLiteStore.store_id``) they do not record.
OLDER_FILE = ("the file was saved by an older tiermem, which did not record the database it "
              "belongs to; it is rebuilt once")


def _sidecar_problem(index: FaissIndex, info: dict[str, object]) -> str | None:
    """Why the saved files cannot stand for this database's vectors, or None."""
    assert index.file is not None
    if info.get("store_id") is None:
        return OLDER_FILE
    if info.get("store_id") != index.store.store_id:
        return "the file was saved for another database"
    if info.get("generation") != index.generation or info.get("dim") != index.dim:
        return OUT_OF_DATE
    if info.get("sha256") != file_sha256(index.file):
        return f"{index.file} is damaged (its checksum differs)"
    return None


def save_files(index: FaissIndex) -> None:
    """Write the index, its 8-bit copy, its graph and, last, the sidecar. On a failure
    (a full disk) no temporary file is left; files already replaced no longer match the
    sidecar, so the next open rebuilds from the database."""
    assert index.file is not None
    try:
        _save_all(index, index.file)
    except BaseException:
        for leftover in (index.file.with_suffix(".tmp"), index.file.with_suffix(".json.tmp")):
            leftover.unlink(missing_ok=True)
        raise


def _save_all(index: FaissIndex, file: Path) -> None:
    tmp = file.with_suffix(".tmp")
    write_index(index.index, tmp)
    info: dict[str, object] = {"generation": index.generation, "dim": index.dim,
                               "count": int(index.index.ntotal),
                               "store_id": index.store.store_id, "sha256": file_sha256(tmp)}
    os.chmod(tmp, PRIVATE_FILE)
    os.replace(tmp, file)
    _save_part(file, index.prefilter, ".sq8", "prefilter", info)
    # Written whole from the live graph: removed rows' vectors are zeros by now.
    _save_part(file, index.graph, ".hnsw", "graph", info)
    sidecar_tmp = file.with_suffix(".json.tmp")
    sidecar_tmp.write_text(json.dumps(info))
    os.chmod(sidecar_tmp, PRIVATE_FILE)
    os.replace(sidecar_tmp, file.with_suffix(".json"))


def _save_part(file: Path, part: Prefilter | Graph | None, suffix: str, key: str,
               info: dict[str, object]) -> None:
    """Write ``part`` beside the index and record it in ``info``; without one, remove
    the file an earlier save left."""
    if part is None:
        with contextlib.suppress(FileNotFoundError):
            file.with_suffix(suffix).unlink()
        return
    tmp = file.with_suffix(".tmp")
    part.save(tmp)
    info[key] = {**part.state, "sha256": file_sha256(tmp)}
    os.chmod(tmp, PRIVATE_FILE)
    os.replace(tmp, file.with_suffix(suffix))


def file_sha256(path: Path) -> str | None:
    try:
        with path.open("rb") as stream:
            return hashlib.file_digest(stream, "sha256").hexdigest()
    except OSError:
        return None


def remove_index_files(file: Path) -> None:
    """Delete an index's files (a restore replaces the database under them)."""
    for path in (file, file.with_suffix(".json"), file.with_suffix(".sq8"),
                 file.with_suffix(".hnsw")):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


__all__ = ["OUT_OF_DATE", "file_sha256", "load_saved", "remove_index_files", "save_files"]
