"""Robust summaries of repeated timings.

The machines are shared and noisy, so every figure is a median (or a high percentile
over many samples) and every claim is a ratio against a floor measured in the same run,
interleaved with the thing measured so that a burst of load hits both sides alike.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence

__all__ = ["percentile", "median", "ratio", "time_call", "interleave"]


def percentile(samples: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation; NaN for no samples."""
    if not samples:
        return math.nan
    ordered = sorted(samples)
    if len(ordered) == 1:
        return float(ordered[0])
    pos = (len(ordered) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = math.ceil(pos)
    frac = pos - lo
    return float(ordered[lo] * (1 - frac) + ordered[hi] * frac)


def median(samples: Sequence[float]) -> float:
    return float(statistics.median(samples)) if samples else math.nan


def ratio(value: float, floor: float) -> float:
    """value / floor, NaN when the floor is not a positive number."""
    if not floor or floor <= 0 or math.isnan(floor) or math.isnan(value):
        return math.nan
    return value / floor


def time_call(fn: Callable[[], object]) -> float:
    """Seconds one call takes (perf_counter, so monotonic and high resolution)."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def interleave(a: Callable[[], object], b: Callable[[], object], rounds: int) -> tuple[list[float], list[float]]:
    """Time ``a`` and ``b`` alternately, swapping who goes first each round.

    Alternating cancels slow drifts in machine load; swapping the order cancels any
    advantage of running right after the other (warm caches, freed memory).
    """
    ta: list[float] = []
    tb: list[float] = []
    for i in range(rounds):
        if i % 2 == 0:
            ta.append(time_call(a))
            tb.append(time_call(b))
        else:
            tb.append(time_call(b))
            ta.append(time_call(a))
    return ta, tb
