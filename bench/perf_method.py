"""How a perf run measures: what and how many times, and side-by-side timing.

``PerfOptions`` derives every store size and repetition count from
``--sizes`` and ``--quick``; ``alternate`` interleaves the operations being
compared so background load on a shared machine hits each alike; the
report's ratios are of medians.

Timed sections run in a ``settled_heap``: the objects made before them are
frozen out of the garbage collector's passes. A full pass walks every object
of the process, and after importing faiss and numpy that alone took 20-35 ms
here, landing on whichever operation happened to allocate at the time. Over
150 full-text searches of one query class at 300k messages, the slowest took
34 ms against 10 ms frozen; it is the process's pause, not the operation's,
and an application avoids it the same way (``gc.freeze()`` after startup).
"""

from __future__ import annotations

import contextlib
import gc
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_SIZES = (10_000, 100_000)
#: ``--quick`` without ``--sizes``: a smoke run, a tenth of the default sizes.
QUICK_SIZES = (1_000, 10_000)


@dataclass(frozen=True)
class PerfOptions:
    """What to measure and how many times."""

    sizes: tuple[int, ...] = DEFAULT_SIZES
    quick: bool = False
    seed: int = 0
    chroma: bool = True
    recall_dense: bool = False

    @property
    def recall_sizes(self) -> tuple[int, ...]:
        return tuple(sorted({10 * s for s in self.sizes}))

    @property
    def core_sizes(self) -> tuple[int, ...]:
        top = max(self.sizes)
        return tuple(sorted({max(1, top // 100), max(1, top // 10), top}))

    @property
    def queries(self) -> int:
        return 40 if self.quick else 200

    @property
    def passes(self) -> int:
        return 1 if self.quick else 3

    @property
    def turns(self) -> int:
        return 16 if self.quick else 200

    @property
    def cold_runs(self) -> int:
        return 1 if self.quick else 5


def parse_sizes(text: str | None, quick: bool = False) -> tuple[int, ...]:
    """``"10000,100000"`` as sizes (none given: the default, or for ``quick`` a tenth of
    it); ValueError names what is wrong."""
    if not text:
        return QUICK_SIZES if quick else DEFAULT_SIZES
    try:
        sizes = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise ValueError(f"--sizes must be whole numbers separated by commas, not {text!r}"
                         ) from None
    if not sizes or min(sizes) < 100:
        raise ValueError(f"--sizes must be at least 100 passages each, not {text!r}")
    return sizes


@contextlib.contextmanager
def settled_heap() -> Iterator[None]:
    """Time what runs inside with the objects made before it out of the collector's passes
    (module docstring); garbage made inside is still collected."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def alternate(ops: dict[str, Callable[[int], Any]], count: int) -> dict[str, list[float]]:
    """Run every op ``count`` times (op(i), i = 0..count-1), alternating between the ops,
    in a ``settled_heap``.

    Which op goes first rotates each round, so neither always runs on a cache
    the other warmed.
    """
    names = list(ops)
    samples: dict[str, list[float]] = {name: [] for name in names}
    with settled_heap():
        for i in range(count):
            shift = i % len(names)
            for name in names[shift:] + names[:shift]:
                start = time.perf_counter()
                ops[name](i)
                samples[name].append(time.perf_counter() - start)
    return samples


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else float("inf")


def _p50_ms(samples: Sequence[float]) -> float:
    return 1000 * statistics.median(samples)
