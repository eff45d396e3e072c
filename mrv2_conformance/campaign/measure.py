"""The campaign figures in docs/campaigns.md, measured on this machine by one command
(in the campaign env, where HypoFuzz is installed):

    .tox/campaign/bin/python -m mrv2_conformance.campaign.measure \\
        [--minutes 10] [--mutant-seconds 120] [-n 2] [--write docs/results/campaign.md]

1. Throughput: a campaign against the reference for --minutes over -n processes,
   examples per second per process, beside plain Hypothesis' rate under the
   ``thorough`` profile (one serial run of every property, from its statistics).
2. Time to find, for each of three mutants: a campaign of --mutant-seconds (its example
   database a real Redis server) beside plain Hypothesis with the same budget (runs of
   the suite with fresh seeds, ``dev`` profile, -n processes, -x, until one fails).
3. Each campaign find replayed from Redis by its printed command, by another process
   in a fresh working directory.

Every figure is wall-clock time on a shared machine: compare the rows of one table,
measured in one run, not runs on different days."""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# Three mutants of different reach: a tie order that breaks only past 16 requests, a
# PCP rank layout, and the slot table's free list.
MUTANTS = (
    "m_sort_unstable_past_16",
    "m_pcp_decodes_on_rank0_only",
    "m_slots_fifo",
)
SUMMARY = re.compile(r"^campaign: (\d+) properties of \S+, (\d+) examples in ([\d.]+) s", re.M)
FOUND = re.compile(r"^FOUND (\S+) \(([\d.]+) s in\): .*$(?:\n.*)*?\n  replay: (.+)$", re.M)
EXAMPLES = re.compile(r"(\d+) passing examples, (\d+) failing examples, (\d+) invalid examples")


@dataclass
class Rate:
    what: str
    processes: int
    seconds: float
    examples: int

    @property
    def per_process(self) -> float:
        return self.examples / self.seconds / self.processes


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MRV2_"))}
    env.pop("HYPOTHESIS_PROFILE", None)
    return env


def _suite(*args: str, cwd: Path, timeout: float) -> tuple[int, str, float]:
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "mrv2_conformance", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return proc.returncode, proc.stdout + proc.stderr, time.monotonic() - start


def _campaign(seconds: float, processes: int, database: str, cwd: Path, *more: str) -> str:
    """A campaign's output, checked to have ended with its report."""
    budget = ("--seconds", f"{seconds:g}", "-n", str(processes), "--database", database)
    code, out, _ = _suite("campaign", *budget, *more, cwd=cwd, timeout=seconds + 600)
    if code not in (0, 1) or SUMMARY.search(out) is None:
        raise RuntimeError(f"the campaign {more} did not finish (exit {code}):\n{out[-3000:]}")
    return out


def campaign_rate(seconds: float, processes: int, work: Path) -> Rate:
    out = _campaign(seconds, processes, str(work / "reference-db"), work)
    match = SUMMARY.search(out)
    assert match is not None  # checked by _campaign
    return Rate(
        f"HypoFuzz campaign, {match.group(1)} properties (the engine loop's three lives included)",
        processes,
        float(match.group(3)),
        int(match.group(2)),
    )


def thorough_rate(work: Path) -> Rate:
    code, out, wall = _suite(
        "-p",
        "no:xdist",
        "--hypothesis-profile",
        "thorough",
        "--hypothesis-show-statistics",
        "-q",
        cwd=work,
        timeout=3600,
    )
    if code != 0:
        raise RuntimeError(f"the thorough run failed (exit {code}):\n{out[-3000:]}")
    examples = sum(sum(map(int, m.groups())) for m in EXAMPLES.finditer(out))
    return Rate(
        "plain Hypothesis, `thorough` profile (1000 examples a property), one serial run",
        1,
        wall,
        examples,
    )


@dataclass
class Find:
    mutant: str
    campaign: str  # "12.3 s (property)" or "none in N s"
    plain: str
    replay: str


def campaign_find(mutant: str, seconds: float, processes: int, url: str, work: Path) -> Find:
    target = f"mrv2_conformance.tests.mutants.{mutant}"
    run_dir = work / f"{mutant}-campaign"
    run_dir.mkdir()
    out = _campaign(seconds, processes, url, run_dir, "--target", target)
    finds = sorted(FOUND.findall(out), key=lambda f: float(f[1]))
    if not finds:
        return Find(mutant, f"none in {seconds:g} s", "", "")
    nodeid, after, command = finds[0]
    found = f"{float(after):.0f} s (`{nodeid.split('::')[-1]}`; {len(finds)} finds in all)"
    return Find(mutant, found, "", replay(command, work / f"{mutant}-replay"))


def replay(command: str, cwd: Path) -> str:
    """The printed command, run by a new process in a fresh directory."""
    cwd.mkdir()
    argv = shlex.split(command)
    if argv[0] != "mrv2-conformance":
        raise RuntimeError(f"not a replay command: {command}")
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "mrv2_conformance", *argv[1:]],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    wall = time.monotonic() - start
    replayed = proc.returncode == 1 and "stored examples replayed, no search" in proc.stdout
    verdict = "fails again" if replayed else f"did NOT fail (exit {proc.returncode})"
    return f"{verdict}, {wall:.0f} s"


def plain_find(mutant: str, seconds: float, processes: int, work: Path) -> str:
    """Runs of the whole suite with fresh seeds until one fails or the budget is out."""
    target = f"mrv2_conformance.tests.mutants.{mutant}"
    start = time.monotonic()
    runs = 0
    while time.monotonic() - start < seconds:
        runs += 1
        left = seconds - (time.monotonic() - start)
        try:
            code, out, _ = _suite(
                "--target",
                target,
                "-n",
                str(processes),
                "-x",
                "--hypothesis-profile",
                "dev",
                cwd=work,
                timeout=max(left, 1.0),
            )
        except subprocess.TimeoutExpired:
            break
        # -x under xdist ends as "Interrupted: stopping after 1 failures" (exit 2).
        if code in (1, 2) and re.search(r"^FAILED ", out, re.M):
            return f"{time.monotonic() - start:.0f} s (run {runs})"
        if code not in (0, 1, 2):
            raise RuntimeError(f"plain run against {mutant}: exit {code}\n{out[-3000:]}")
    return f"none in {seconds:g} s ({runs} runs)"


def table(rates: list[Rate], finds: list[Find], args: argparse.Namespace) -> str:
    machine = f"{os.cpu_count()} CPUs, Python {platform.python_version()}"
    lines = [
        f"Measured by `python -m mrv2_conformance.campaign.measure --minutes {args.minutes:g} "
        f"--mutant-seconds {args.mutant_seconds:g} -n {args.processes}` in the campaign "
        f"env (`tox -e campaign`), on {machine}, on {time.strftime('%Y-%m-%d')}.",
        "",
        "| run | processes | seconds | examples | examples/s per process |",
        "|---|---:|---:|---:|---:|",
        *(
            f"| {r.what} | {r.processes} | {r.seconds:.0f} | {r.examples} | {r.per_process:.1f} |"
            for r in rates
        ),
        "",
        f"| mutant | campaign ({args.processes} processes, {args.mutant_seconds:g} s budget; "
        f"first find) | plain Hypothesis (same budget) | the find replayed from Redis "
        f"(a new process, a fresh directory) |",
        "|---|---|---|---|",
        *(f"| `{f.mutant}` | {f.campaign} | {f.plain} | {f.replay or '-'} |" for f in finds),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m mrv2_conformance.campaign.measure")
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--mutant-seconds", type=float, default=120.0)
    p.add_argument("-n", "--processes", type=int, default=os.cpu_count() or 1)
    p.add_argument("--write", type=Path, default=None, help="also write the tables here")
    args = p.parse_args(argv)
    from mrv2_conformance.campaign.server import local_redis

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        rates = [campaign_rate(args.minutes * 60, args.processes, work), thorough_rate(work)]
        finds = []
        with local_redis(work) as base:
            for i, mutant in enumerate(MUTANTS):
                url = base.rsplit("/", 1)[0] + f"/{i}"  # a database of its own on the server
                find = campaign_find(mutant, args.mutant_seconds, args.processes, url, work)
                find.plain = plain_find(mutant, args.mutant_seconds, args.processes, work)
                finds.append(find)
                print(f"{mutant}: {find}", flush=True)
    text = table(rates, finds, args)
    print(text)
    if args.write:
        args.write.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
