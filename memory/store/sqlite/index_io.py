"""Writing a FAISS index to a file so that a failed write is an error, not a short file.

``faiss.write_index(index, path)`` reports a failed ``fclose`` (a full disk
discovered at the flush) on standard error only, and leaves a short file that
the caller would then rename into place. Written through Python instead, every
write and the close raise ``OSError``. (No fsync: the saved index is a cache
whose sidecar holds its sha256, so a file torn by a crash is rebuilt.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import faiss


def write_index(index: Any, path: Path) -> None:
    """Write ``index`` to ``path`` whole; OSError (the file removed) if it fails."""
    try:
        with open(path, "wb") as stream:
            writer = faiss.PyCallbackIOWriter(stream.write)  # type: ignore[attr-defined]
            try:
                faiss.write_index(index, writer)
            finally:
                del writer
    except BaseException:
        path.unlink(missing_ok=True)
        raise
