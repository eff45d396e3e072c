"""Repeat-and-take-order-statistics timing of a zero-argument callable."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Stats:
    min: float  # seconds per call
    median: float
    max: float


def measure(fn: Callable[[], object], repeats: int = 7, budget_s: float = 0.01) -> Stats:
    """Calls per repeat are calibrated so one repeat takes about ``budget_s``."""
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= budget_s or number >= 1 << 20:
            break
        number *= 2 if elapsed == 0 else max(2, min(10, int(budget_s / elapsed) + 1))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return Stats(min(samples), statistics.median(samples), max(samples))
