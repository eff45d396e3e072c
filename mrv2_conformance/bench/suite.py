"""Benchmark the suite itself: examples per second per family (from Hypothesis'
statistics) and the wall time of the conformance run, serial vs ``-n auto``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
_TEST = re.compile(r"^(?:\S*/)?conformance/test_(\w+)\.py::(\S+):$")
_PHASE = re.compile(r"during generate phase \(([\d.]+) seconds\)")
_COUNTS = re.compile(r"(\d+) passing, (\d+) failing, and (\d+) invalid")


def _pytest(*args: str) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["HYPOTHESIS_PROFILE"] = "ci"
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "conformance", "-q", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"pytest {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
    return time.perf_counter() - start, proc.stdout


def examples_per_second(statistics_output: str) -> dict[str, dict[str, float]]:
    seconds: dict[str, float] = defaultdict(float)
    examples: dict[str, int] = defaultdict(int)
    family = None
    for line in statistics_output.splitlines():
        if m := _TEST.match(line.strip()):
            family = m.group(1)
        elif family and (m := _PHASE.search(line)):
            seconds[family] += float(m.group(1))
        elif family and (m := _COUNTS.search(line)):
            examples[family] += int(m.group(1)) + int(m.group(2)) + int(m.group(3))
    return {
        f: {
            "examples": examples[f],
            "generate_s": round(seconds[f], 3),
            "examples_per_s": round(examples[f] / seconds[f], 1) if seconds[f] else 0.0,
        }
        for f in sorted(seconds)
    }


def benchmark_suite(quick: bool = False) -> dict:
    serial_s, stats = _pytest(
        "-p", "no:xdist", "--hypothesis-show-statistics", *(["-m", "slot_table"] if quick else [])
    )
    per_family = examples_per_second(stats)
    result: dict[str, Any] = {"per_family": per_family, "serial_wall_s": round(serial_s, 1)}
    if not quick:
        result["n_auto_wall_s"] = round(_pytest("-n", "auto")[0], 1)
    for family, row in per_family.items():
        print(f"{family:<14} {row['examples']:>6} examples  {row['examples_per_s']:>8.1f}/s")
    print(
        f"conformance wall: serial {result['serial_wall_s']} s"
        + (f", -n auto {result['n_auto_wall_s']} s" if "n_auto_wall_s" in result else "")
    )
    return result
