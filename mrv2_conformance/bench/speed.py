"""How fast the suite itself runs, this version beside a previous one, in one run.

    python -m mrv2_conformance.bench.speed                      # vs HEAD~1
    python -m mrv2_conformance.bench.speed --baseline 51ed890   # vs any git revision
    python -m mrv2_conformance.bench.speed --dev-test           # also every test (minutes)
    python -m mrv2_conformance.bench.speed --shared             # also with one busy CPU beside

Each measurement is a whole process (``python -m pytest ...`` under the ``ci``
profile), timed by wall clock, median of ``--repeats`` after one warm-up, old and new
alternated so that machine noise hits both alike. The baseline is checked out from git
into a temporary directory and imported from there (a path shim maps
``mrv2_conformance`` onto it), with this environment's packages. The issue's goals
(issue 33) are printed beside the figures; nothing here is a test, and nothing fails
on a slow machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the clone

# name -> pytest arguments: the conformance run against the reference, serial and on
# two workers (the ci profile comes from the environment, _env).
RUNS = {
    "serial": ["conformance", "-p", "no:xdist", "-q"],
    "-n 2": ["conformance", "-n", "2", "-q"],
}
DEV_TEST = ["-n", "2", "-q"]  # ./dev test on this 2-core machine (-n auto = 2)


@dataclass(frozen=True)
class Version:
    label: str
    root: Path  # the clone's tree
    suite: Path  # the folder holding conformance/ (RUNS run there, in either layout)
    python: str
    env: dict[str, str]


def _env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "MRV2_", "HYPOTHESIS_")) and k != "PYTHONPATH"
    }
    env["HYPOTHESIS_PROFILE"] = "ci"
    # As ./dev runs: bytecode (and pytest's rewritten modules) may be cached.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


@contextmanager
def checkout(rev: str) -> Iterator[Version]:
    """``rev`` in a temporary directory, with a Python of its own: a venv that sees
    this environment's packages but imports ``mrv2_conformance`` from ``rev`` (in
    the subprocesses and pasted commands of its own tests too)."""
    with tempfile.TemporaryDirectory(prefix="mrv2-baseline-") as tmp:
        tree = Path(tmp) / "tree"
        tree.mkdir()
        archive = subprocess.run(
            ["git", "archive", rev], cwd=ROOT, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        # That revision's package layout: the plain package folder, or (before the
        # suite moved into mrv2_conformance/) pyproject's package-dir, rebuilt as
        # symlinks inside its mrv2_conformance/ folder.
        setuptools = tomllib.loads((tree / "pyproject.toml").read_text())["tool"]["setuptools"]
        package_dir = setuptools.get("package-dir", {})
        pkg = tree / package_dir.get("mrv2_conformance", "mrv2_conformance")
        for name, folder in package_dir.items():
            if name != "mrv2_conformance" and not (pkg / name.rsplit(".", 1)[1]).exists():
                (pkg / name.rsplit(".", 1)[1]).symlink_to(tree / folder)
        suite = tree if "mrv2_conformance" in package_dir else pkg
        shim = Path(tmp) / "shim"
        shim.mkdir()
        (shim / "mrv2_conformance").symlink_to(pkg)
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        python = venv / "bin" / "python"
        site = subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        # The shim first, then this environment's packages (not its .pth files, so
        # not the editable install of the current version).
        Path(site, "mrv2_baseline.pth").write_text(f"{shim}\n{sysconfig.get_paths()['purelib']}\n")
        yield Version(rev, tree, suite, str(python), _env())


def _time(version: Version, args: list[str], *, in_suite: bool = True) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [version.python, "-m", "pytest", *args],
        cwd=version.suite if in_suite else version.root,
        env=version.env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(
            f"{version.label}: pytest {' '.join(args)} exited "
            f"{proc.returncode}:\n{proc.stdout[-2000:]}{proc.stderr[-1000:]}"
        )
    return elapsed


@contextmanager
def busy_cpu() -> Iterator[None]:
    """One CPU-bound process beside the measurement (a shared machine)."""
    proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        proc.kill()
        proc.wait()


def measure(versions: list[Version], args: list[str], repeats: int) -> dict[str, float]:
    """Median wall time per version, alternated, after one warm-up each."""
    for v in versions:
        _time(v, args)
    samples: dict[str, list[float]] = {v.label: [] for v in versions}
    for _ in range(repeats):
        for v in versions:
            samples[v.label].append(_time(v, args))
    return {label: statistics.median(s) for label, s in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline", default=None, help="git revision to compare with (default: HEAD~1)"
    )
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument(
        "--dev-test",
        action="store_true",
        help="also time every test (./dev test), once per version",
    )
    parser.add_argument(
        "--shared", action="store_true", help="also time serial and -n 2 beside one busy CPU"
    )
    parser.add_argument("--json", type=Path, default=ROOT / "reports" / "speed.json")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the table here")
    args = parser.parse_args(argv)
    baseline = args.baseline or "HEAD~1"
    current = Version("current", ROOT, ROOT / "mrv2_conformance", sys.executable, _env())
    rows: list[dict] = []
    with checkout(baseline) as base:
        versions = [base, current]
        plan = [(name, run, False) for name, run in RUNS.items()]
        if args.shared:
            plan += [(f"{name} (1 busy CPU beside)", run, True) for name, run in RUNS.items()]
        for name, run, shared in plan:
            if shared:
                with busy_cpu():
                    medians = measure(versions, run, args.repeats)
            else:
                medians = measure(versions, run, args.repeats)
            rows.append(
                {"run": name, "baseline_s": medians[base.label], "current_s": medians["current"]}
            )
        if args.dev_test:
            rows.append(
                {
                    "run": "./dev test (-n 2)",
                    "baseline_s": _time(base, DEV_TEST, in_suite=False),
                    "current_s": _time(current, DEV_TEST, in_suite=False),
                }
            )
    print(f"{'run':<34} {baseline:>12} {'current':>10} {'speed-up':>9}")
    for r in rows:
        print(
            f"{r['run']:<34} {r['baseline_s']:>11.2f}s {r['current_s']:>9.2f}s "
            f"{r['baseline_s'] / r['current_s']:>8.2f}x"
        )
    by = {r["run"]: r["current_s"] for r in rows}
    # Issue 33's goals, which replace issue 14's: the suite grew the device families
    # (every device property twice) and production-size batches since.
    print("\ngoals (issue 33, against 60e4bed's 9.8 s), this version:")
    print(f"  ci conformance serial <= 9.8 s (aim: 8 s): {by['serial']:.2f} s")
    print(f"  -n 2 >= 1.6x faster than serial: {by['serial'] / by['-n 2']:.2f}x")
    if args.shared:
        shared_ratio = by["serial (1 busy CPU beside)"] / by["-n 2 (1 busy CPU beside)"]
        print(f"  -n 2 never slower than serial on a shared machine: {shared_ratio:.2f}x")
    if args.dev_test:
        print(f"  ./dev test <= 240 s (issue 14's goal): {by['./dev test (-n 2)']:.0f} s")
    args.json.parent.mkdir(exist_ok=True)
    args.json.write_text(
        json.dumps(
            {"baseline": baseline, "repeats": args.repeats, "cpus": os.cpu_count(), "rows": rows},
            indent=1,
        )
    )
    if args.markdown is not None:
        given = " ".join(a for a in (argv if argv is not None else sys.argv[1:]))
        args.markdown.write_text(markdown(rows, baseline, args.repeats, given))
    return 0


def markdown(rows: list[dict], baseline: str, repeats: int, given: str) -> str:
    """The table as docs/results/speed.md holds it, with the command that wrote it."""
    lines = [
        "# Speed of the suite itself",
        "",
        f"Generated by `python -m mrv2_conformance.bench.speed {given}` ({os.cpu_count()} "
        f"CPUs, medians of {repeats} runs each, alternated, after a warm-up); "
        f"mrv2_conformance/bench/README.md says what each run is.",
        "",
        f"| run | {baseline} | this version | speed-up |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {r['run']} | {r['baseline_s']:.2f} s | {r['current_s']:.2f} s | "
        f"{r['baseline_s'] / r['current_s']:.2f}x |"
        for r in rows
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
