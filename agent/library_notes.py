"""The library's warnings, shown by the command line as its own ``tiermem:`` notes.

The memory layer reports through ``logging`` (a pause while a dead writer's lock is
released, a vector graph that could not be built), so a Python caller decides where such
lines go. A command shows them on standard error, worded as every other note it writes;
left to Python's fallback they would appear without the ``tiermem:`` that tells a user
which program is speaking, and not at all once a caller's code had configured logging.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: The logger every module of the package logs under.
LIBRARY_LOGGER = "tiermem"


class _NoteHandler(logging.Handler):
    def __init__(self, note: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.note = note

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.note(record.getMessage())
        except Exception:  # a note must never end the command
            self.handleError(record)


@contextmanager
def library_notes(note: Callable[[str], None]) -> Iterator[None]:
    """While the block runs, the library's warnings (and worse) reach ``note``."""
    logger = logging.getLogger(LIBRARY_LOGGER)
    handler = _NoteHandler(note)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
