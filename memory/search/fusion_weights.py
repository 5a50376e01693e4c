"""How hybrid search fuses its two lists: ``FusionWeights``, a memory's setting.

memory/search/fusion.py searches with them, and memory/search/fusion_scores.py
scores by them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

RRF_K = 60
#: The ways the two lists are fused (``FusionWeights.method``).
FUSION_METHODS = ("convex", "rrf")
#: The most rows of each list a fused search reads before it may stop.
MAX_FUSION_DEPTH = 100_000


@dataclass(frozen=True)
class FusionWeights:
    """How hybrid search ranks: the weight of each list, the method and the list depth.

    ``dense=0`` is lexical (BM25) only and ``lexical=0`` dense only; a list
    with weight 0 is not searched at all (nor counted in ``total``). ``method``
    is ``"convex"`` (the weighted sum of scores in memory/search/fusion_scores.py) or
    ``"rrf"`` (reciprocal ranks with ``rrf_k``). The defaults were tuned on
    LoCoMo's dev conversations; 0.5:0.5 to 0.7:0.3 measured within 0.01.
    ``prune_common`` drops words found in most rows from the query (``lexical_query_text``).
    """

    lexical: float = 0.6
    dense: float = 0.4
    method: str = "convex"
    rrf_k: int = RRF_K
    depth: int = 100
    prune_common: bool = True

    def __post_init__(self) -> None:
        if self.method not in FUSION_METHODS:
            raise ValueError("FusionWeights.method must be 'convex' or 'rrf'")
        for name in ("lexical", "dense"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    math.isfinite(value)):
                raise ValueError(f"FusionWeights.{name} must be a finite number, got {value!r}")
            if value < 0:
                raise ValueError(f"FusionWeights.{name} must be at least 0, got {value!r}")
        if self.lexical + self.dense <= 0:
            raise ValueError("fusion weights lexical and dense must not both be zero")
        for name, most in (("rrf_k", 1_000_000), ("depth", MAX_FUSION_DEPTH)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
                raise ValueError(f"FusionWeights.{name} must be an integer from 1 to {most:,}, "
                                 f"got {value!r}")
        if not isinstance(self.prune_common, bool):
            raise ValueError("FusionWeights.prune_common must be True or False")
