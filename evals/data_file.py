"""Reading a LoCoMo data file's text: its encoding, and what a file that is no text is.

A compressed file, an archive, or text in another encoding than UTF-8 (or UTF-16 or UTF-32
with a byte order mark) is refused with what it is and how to give it, rather than read
as text that is not JSON.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from tiermem.memory.text.counts import counted

#: Longer integers are refused as they are read: Python refuses to convert them, with
#: advice for programmers.
_MOST_DIGITS = 100


class DataError(ValueError):
    """A LoCoMo file that cannot be read as a conversation."""


DATA_TAKES = ("--data takes LoCoMo JSON files or folders of them (one conversation per "
              "file, or the released locomo10.json, in the data folder of "
              "https://github.com/snap-research/locomo)")

#: How a compressed file begins (no JSON text begins so), what it is, what unpacks it:
#: read as text, each was "not UTF-8 text ...; save it as UTF-8".
_PACKED = ((b"\x1f\x8b", "gzip-compressed", "gunzip"),
           (b"BZh", "bzip2-compressed", "bunzip2"),
           (b"\xfd7zXZ\x00", "xz-compressed", "unxz"),
           (b"\x28\xb5\x2f\xfd", "zstd-compressed", "unzstd"),
           (b"PK\x03\x04", "a zip archive", "unzip"))
#: A zip archive of no file is its end record alone, which begins so.
_EMPTY_ZIP = b"PK\x05\x06"


def file_text(file: Path) -> str:
    """A data file's text: UTF-8, with or without the byte order mark some editors write,
    or UTF-16 or UTF-32 with its mark (Windows PowerShell's `>` writes UTF-16). DataError
    (read as "cannot read FILE: ...") for a compressed file, or one of another encoding."""
    data = file.read_bytes()
    if data.startswith(_EMPTY_ZIP):
        raise DataError(f"it is an empty zip archive, holding no conversations (no file at "
                        f"all); {DATA_TAKES}")
    if data.startswith(b"PK\x03\x04"):
        held = _zip_without_data(data)
        if held is not None:
            raise DataError(f"it is a zip archive {held}, holding no conversations; "
                            f"{DATA_TAKES}")
    for magic, what, tool in _PACKED:
        if data.startswith(magic):
            raise DataError(f"it is {what}; decompress it ({tool}) and give the .json file")
    # UTF-32's little-endian mark begins as UTF-16's does: it is looked for first.
    encoding = ("UTF-32" if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")) else
                "UTF-16" if data.startswith((b"\xff\xfe", b"\xfe\xff")) else "UTF-8")
    try:
        return data.decode("utf-8-sig" if encoding == "UTF-8" else encoding)
    except UnicodeDecodeError as exc:
        raise DataError(f"it is not {encoding} text (byte {exc.start:,} is "
                        f"{data[exc.start]:#04x}); save it as UTF-8") from None


def _zip_without_data(data: bytes) -> str | None:
    """What a zip archive holds in place of LoCoMo JSON ("of folders alone"), or None when
    it holds a .json file with something in it, or is not read as an archive (unzip then
    says why)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            files = [m for m in archive.infolist() if not m.is_dir()]
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return None
    if not files:
        return "of folders alone (no file at all)"
    json_files = [m for m in files if m.filename.lower().endswith(".json")]
    if not json_files:
        return f"of no .json file ({counted(len(files), 'file')} of another type)"
    if not any(m.file_size for m in json_files):
        return f"whose .json {'file is' if len(json_files) == 1 else 'files are'} empty"
    return None


def json_int(digits: str) -> int:
    """A JSON integer as read, refused (DataError) past _MOST_DIGITS digits."""
    if len(digits.lstrip("-")) > _MOST_DIGITS:
        raise DataError(f"it holds a number of {len(digits.lstrip('-')):,} digits, which no "
                        f"LoCoMo field has (at most {_MOST_DIGITS} are read)")
    return int(digits)
