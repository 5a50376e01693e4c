"""An 8-bit copy of a dense index, scanned first so that exact search reads a quarter of the bytes.

Exact search over N float32 vectors must read N x dim x 4 bytes per query, so
past the CPU caches its time is set by memory bandwidth (100k MiniLM vectors:
154 MB, about 4 ms on a 40 GB/s core). The prefilter keeps every vector again
as one byte per dimension (FAISS ``QT_8bit_uniform``, in a one-list
``IndexIVFScalarQuantizer`` because that layout has FAISS's SIMD range scan),
scans those, and then rescores the few candidates with their float32 vectors.

The answer stays exact, not approximate. For every stored row we know how far
its decoded vector is from the true one, ``|x - x_hat|``; the largest of these,
``error_bound``, bounds how much any approximate similarity can be off, since
``|q.x - q.x_hat| <= |q| |x - x_hat|``. So:

* top k: scan for the best ``want`` approximate rows and rescore them; if the
  k-th exact similarity is at least the ``want``-th approximate one plus the
  bound, no row outside the candidates can beat it. Otherwise widen and retry.
* above a threshold t: every row whose approximate similarity is at least
  ``t - bound`` is a candidate; rescoring keeps those truly at or above t.

Values outside the range the quantiser was trained on are clipped; their
larger error is measured like any other, so the bound holds for them too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import faiss
import numpy as np

from tiermem.memory.store.sqlite.index_io import write_index

#: Rebuild (retrain the range) when vectors clipped by the trained range push
#: the error bound past this and past twice its value just after training;
#: trained on the data it is about 0.011 for MiniLM.
MAX_ERROR_BOUND = 0.05
_LEVELS = 255


class Prefilter:
    """The 8-bit copy of one index's vectors, keyed by the same ids."""

    def __init__(self, index: faiss.IndexIVFScalarQuantizer, error_bound: float,
                 trained_bound: float | None = None) -> None:
        self.index = index
        self.error_bound = error_bound
        #: The bound right after training: retraining cannot get below about this.
        self.trained_bound = error_bound if trained_bound is None else trained_bound
        trained = faiss.vector_to_array(index.sq.trained)
        self._vmin, self._vdiff = np.float32(trained[0]), np.float32(trained[1])
        # Float32 rounding of the two dot products (approximate and exact): at most about
        # dim x 2^-24 x |x| |q| each (Higham), doubled for safety, per unit of |q|.
        self._rounding = 2 * index.d * float(np.finfo(np.float32).eps)

    @classmethod
    def build(cls, ids: np.ndarray, vectors: np.ndarray) -> Prefilter:
        """Train the 8-bit range on ``vectors`` and add them all."""
        dim = vectors.shape[1]
        index = faiss.IndexIVFScalarQuantizer(
            faiss.IndexFlatIP(dim), dim, 1, faiss.ScalarQuantizer.QT_8bit_uniform,
            faiss.METRIC_INNER_PRODUCT, False)
        index.train(vectors)
        # A hash map from id to position makes removing a row O(1) instead of a scan.
        index.set_direct_map_type(faiss.DirectMap.Hashtable)  # type: ignore[attr-defined]
        prefilter = cls(index, 0.0)
        prefilter.add(ids, vectors)
        prefilter.trained_bound = prefilter.error_bound
        return prefilter

    @property
    def state(self) -> dict[str, Any]:
        """What a sidecar records, so that ``load`` can tell this copy from another."""
        return {"error_bound": self.error_bound, "trained_bound": self.trained_bound,
                "range": [float(self._vmin), float(self._vdiff)], "count": len(self)}

    @classmethod
    def load(cls, path: Path, state: dict[str, Any]) -> Prefilter | None:
        """The prefilter saved at ``path`` if it is the one ``state`` describes, else None.

        The trained range and the row count must match, so a copy retrained
        or changed after the sidecar was written is never trusted with the
        sidecar's error bound.
        """
        try:
            index = faiss.read_index(str(path))
            bound, trained = float(state["error_bound"]), float(state["trained_bound"])
            expected = [float(v) for v in state["range"]]
        except (RuntimeError, KeyError, TypeError, ValueError):
            return None
        if not isinstance(index, faiss.IndexIVFScalarQuantizer) or index.ntotal != state.get(
                "count"):
            return None
        prefilter = cls(index, bound, trained)
        if [float(prefilter._vmin), float(prefilter._vdiff)] != expected:
            return None
        return prefilter

    def save(self, path: Path) -> None:
        write_index(self.index, path)

    def __len__(self) -> int:
        return int(self.index.ntotal)

    @property
    def stale(self) -> bool:
        """Whether clipped vectors made the bound so loose that retraining pays."""
        return self.error_bound > max(MAX_ERROR_BOUND, 2 * self.trained_bound)

    # -- changes ---------------------------------------------------------------------------
    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if len(ids) == 0:
            return
        self.index.add_with_ids(vectors, ids)
        self.error_bound = max(self.error_bound, float(self.decode_errors(vectors).max()))

    def remove(self, ids: np.ndarray) -> None:
        # The bound stays: it only has to be at least every remaining row's error.
        # faiss's wrapper turns an id array into an IDSelectorBatch.
        self.index.remove_ids(ids)  # type: ignore[arg-type]

    def decode_errors(self, vectors: np.ndarray) -> np.ndarray:
        """``|x - x_hat|`` of each row, with FAISS's 8-bit uniform encoding and decoding.

        Encoding truncates ``255 (x - vmin) / vdiff`` clipped to [0, 1]; decoding
        takes the middle of the code's step. tests/test_prefilter.py checks that
        these codes are FAISS's own.
        """
        out = np.empty(len(vectors), dtype=np.float64)
        for start in range(0, len(vectors), 8192):
            chunk = vectors[start : start + 8192]
            codes = self.codes(chunk)
            decoded = self._vmin + (codes.astype(np.float32) + np.float32(0.5)) / np.float32(
                _LEVELS) * self._vdiff
            out[start : start + 8192] = np.linalg.norm(
                chunk.astype(np.float64) - decoded.astype(np.float64), axis=1)
        return out

    def codes(self, vectors: np.ndarray) -> np.ndarray:
        unit = np.clip((vectors - self._vmin) / self._vdiff, np.float32(0), np.float32(1))
        return (np.float32(_LEVELS) * unit).astype(np.uint8)

    # -- candidates ------------------------------------------------------------------------
    def margin(self, query: np.ndarray) -> float:
        """How far an approximate similarity to ``query`` can be from the exact one."""
        return (self.error_bound + self._rounding) * float(np.linalg.norm(query))

    def top(self, query: np.ndarray, want: int) -> tuple[np.ndarray, float]:
        """The best ``want`` rows by approximate similarity, and the lowest similarity of them."""
        sims, ids = self.index.search(query, want)
        keep = ids[0] >= 0
        return ids[0][keep], float(sims[0][keep][-1]) if keep.any() else float("-inf")

    def above(self, query: np.ndarray, threshold: float) -> np.ndarray:
        """Ids of every row whose exact similarity could be at least ``threshold``."""
        lims, _, ids = self.index.range_search(query, threshold - self.margin(query))
        return ids[lims[0] : lims[1]]


__all__ = ["MAX_ERROR_BOUND", "Prefilter"]
