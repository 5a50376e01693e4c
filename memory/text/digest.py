"""Fingerprints of texts, for records that must say what changed without keeping it.

An event or an erasure report names a text by a short sha256 and its length,
so two records can be matched against each other (or against a text someone
still holds) while the record itself never holds the content.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

#: Hex digits of sha256 kept: 64 bits tell texts apart in one memory's records.
DIGEST_HEX = 16


def text_digest(text: str) -> str:
    """``sha256:`` and the first ``DIGEST_HEX`` hex digits of the text's UTF-8 sha256."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:DIGEST_HEX]


def describe_text(text: str) -> str:
    """The text as a record may show it: its digest and its length in characters."""
    return f"{text_digest(text)} chars={len(text)}"


def replaced_detail(old: str) -> str:
    """The ``detail`` of a replace event: the replaced text described, never kept."""
    return f"old={describe_text(old)}"


def is_replaced_detail(detail: str) -> bool:
    return detail.startswith("old=sha256:")


def digest_of_all(texts: Iterable[str]) -> str:
    """One digest over several texts, in the order given (each length-prefixed, so the
    boundaries between them count)."""
    digest = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return "sha256:" + digest.hexdigest()


__all__ = ["DIGEST_HEX", "describe_text", "digest_of_all", "is_replaced_detail",
           "replaced_detail", "text_digest"]
