"""What records say of texts they must not keep.

A replace event keeps only the replaced text's length. An erasure report,
returned to its caller and never stored, names what went by one HMAC-SHA256 over
all of it, keyed by a key this process makes up and never shows: two reports
of one process can be compared without either holding the content, and a
report printed or logged is no digest to try guesses of a short secret against.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable


def replaced_detail(old: str) -> str:
    """The ``detail`` of a replace event: the replaced text's length, never a digest of it.

    A digest of a short text (a PIN, a card number) is reversed by trying every
    candidate, so the event keeps only what the replacement changed in size.
    """
    return f"old_chars={len(old)}"


def is_replaced_detail(detail: str) -> bool:
    return re.fullmatch(r"old_chars=\d+", detail) is not None


_PROCESS_KEY: list[bytes] = []


def digest_of_all(texts: Iterable[str]) -> str:
    """One keyed digest over several texts, in the order given (each length-prefixed, so
    the boundaries between them count), with this process's key (module docstring)."""
    if not _PROCESS_KEY:
        _PROCESS_KEY.append(secrets.token_bytes(32))
    digest = hmac.new(_PROCESS_KEY[0], digestmod=hashlib.sha256)
    for text in texts:
        data = text.encode("utf-8")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return "hmac-sha256:" + digest.hexdigest()


__all__ = ["digest_of_all", "is_replaced_detail", "norm_hash", "replaced_detail"]


def norm_hash(norm: str) -> str:
    """The hash a forgotten fact's norm is remembered by (``ForgetStore.block``), so that
    extraction does not store the fact again. A digest of a short text can be reversed:
    an erasure of the fact takes its hash away too (memory/ops/erase.py)."""
    return hashlib.sha256(norm.encode()).hexdigest()
