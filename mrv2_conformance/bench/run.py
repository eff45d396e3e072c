"""Run the benchmarks: a table of min/median/max and ratios on the terminal, JSON on disk.

    python -m bench.run                      # full: batch sizes 1..4096, tables 1024/16384
    python -m bench.run --quick              # smoke: tiny sizes, few repeats (CI)
    python -m bench.run --suite              # also time the conformance suite itself
    python -m bench.run --json reports/bench.json

Ratios are baseline median / variant median: above 1.0 the variant is faster.
torch runs single-threaded for stable figures.
"""

from __future__ import annotations

import argparse
import functools
import json
import platform
import sys
from pathlib import Path

import numpy as np
import torch
from mrv2_conformance.bench import cases
from mrv2_conformance.bench.timing import measure


def run_groups(batch_sizes, table_sizes, repeats: int, budget_s: float) -> list[dict]:
    rows = []
    for table_size in table_sizes:
        for batch_size in batch_sizes:
            if batch_size > table_size:
                continue
            setup = cases.Setup(table_size, batch_size)
            for group in cases.GROUPS:
                stats = {
                    name: measure(functools.partial(fn, setup), repeats, budget_s)
                    for name, fn in group.variants.items()
                }
                base = stats[group.baseline].median
                for name, st in stats.items():
                    rows.append(
                        {
                            "group": group.name,
                            "variant": name,
                            "baseline": group.baseline,
                            "table_size": table_size,
                            "batch_size": batch_size,
                            "min_s": st.min,
                            "median_s": st.median,
                            "max_s": st.max,
                            "ratio_vs_baseline": base / st.median,
                        }
                    )
    return rows


def check_reference_not_slower(rows: list[dict]) -> list[str]:
    """Issue goal: the reference's mapping build is at least as fast as upstream's
    (__getitem__) at every size, in the same run. Returns the sizes where it is not."""
    by = {
        (r["table_size"], r["batch_size"], r["variant"]): r["median_s"]
        for r in rows
        if r["group"] == "mapping build"
    }
    slower = []
    for (t, b, v), med in by.items():
        if v == "reference impl" and med > by[(t, b, "__getitem__ (#51210)")] * 1.0:
            slower.append(f"table {t}, batch {b}: {by[(t, b, '__getitem__ (#51210)')] / med:.3f}")
    return slower


def format_table(rows: list[dict]) -> str:
    out = [
        f"{'group':<24} {'variant':<22} {'table':>6} {'batch':>6} "
        f"{'min us':>9} {'median us':>10} {'max us':>9} {'ratio':>7}"
    ]
    for r in rows:
        out.append(
            f"{r['group']:<24} {r['variant']:<22} {r['table_size']:>6} {r['batch_size']:>6} "
            f"{r['min_s'] * 1e6:>9.2f} {r['median_s'] * 1e6:>10.2f} "
            f"{r['max_s'] * 1e6:>9.2f} {r['ratio_vs_baseline']:>7.3f}"
        )
    return "\n".join(out)


def environment() -> dict:
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "machine": platform.machine(),
        "processor": platform.processor() or "?",
        "torch_threads": torch.get_num_threads(),
        "device": cases.DEVICE,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke mode: tiny, fast")
    parser.add_argument("--suite", action="store_true", help="also benchmark the suite")
    parser.add_argument("--json", type=Path, default=Path("reports/bench.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if args.quick:
        rows = run_groups((1, 64), (1024,), repeats=3, budget_s=0.001)
    else:
        rows = run_groups(cases.BATCH_SIZES, cases.TABLE_SIZES, repeats=7, budget_s=0.01)
    print(format_table(rows))
    result = {"environment": environment(), "quick": args.quick, "rows": rows}
    slower = check_reference_not_slower(rows)
    print(
        "\nreference mapping build vs upstream __getitem__: "
        + ("not slower at any size" if not slower else "SLOWER at " + "; ".join(slower))
    )
    result["reference_slower_at"] = slower
    if args.suite:
        from mrv2_conformance.bench.suite import benchmark_suite

        result["suite"] = benchmark_suite(quick=args.quick)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1))
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
