"""Time to find at each production boundary (docs/campaigns.md), measured by one command
in the campaign env, where HypoFuzz is installed:

    .tox/campaign/bin/python -m mrv2_conformance.campaign.time_to_find \\
        [--campaign-seconds 600] [-n 2] [--write docs/results/time-to-find.md]

Each boundary of the reach table (docs/results/reach.md) has a mutant of the reference
that is wrong there and only there. Each mutant is hunted three ways, each a whole
process timed by wall clock, from its start to the first failure:

- ``ci``: one run of the suite under the ``ci`` profile (derandomized: the same
  examples every run), ``-n`` processes, ``-x``;
- ``thorough``: one run under ``thorough`` (1,000 examples a property, a fresh seed),
  ``-n`` processes, ``-x``;
- a campaign: HypoFuzz over ``-n`` processes, a fresh database, stopped at its first
  find (``campaign --exitfirst``), within ``--campaign-seconds``.

Figures are wall-clock times on a shared machine: compare the rows of one table."""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mrv2_conformance.campaign.measure import FOUND, _campaign, _suite

# (boundary as the reach table names it, the mutant wrong only there)
BOUNDARIES = (
    ("17+ requests in one step (ties past 16)", "m_sort_unstable_past_16"),
    ("a slot past 255 (tables of 256+ slots)", "m_slot_through_uint8"),
    ("a batch of 513+ requests", "m_batch_past_512_reuses_rows"),
    ("a full batch of 1,024 requests", "m_batch_of_1024_wraps_last_row"),
    ("a slot table at exact capacity", "m_full_table_evicts"),
    ("a step of 32,768+ tokens (past int16)", "m_query_start_loc_int16"),
    ("a context of 2**16+ tokens (past uint16)", "m_context_through_uint16"),
    ("a sequence past 2**24 tokens (float32)", "m_seq_lens_through_float32"),
    ("a context within 2**18 of the int32 limit", "m_context_saturates_near_int32_limit"),
)
FAILED = re.compile(r"^FAILED (\S+)", re.M)


@dataclass
class Hunt:
    boundary: str
    mutant: str
    ci: str = ""
    thorough: str = ""
    campaign: str = ""


def _property(nodeid: str) -> str:
    return nodeid.split("::")[-1]


def plain_hunt(mutant: str, profile: str, processes: int, work: Path) -> str:
    """One run of the suite under ``profile``, stopped at its first failure."""
    target = f"mrv2_conformance.tests.mutants.{mutant}"
    code, out, wall = _suite(
        "--target",
        target,
        "-n",
        str(processes),
        "-x",
        "--hypothesis-profile",
        profile,
        cwd=work,
        timeout=3600,
    )
    failed = FAILED.search(out)
    # -x under xdist ends as "Interrupted: stopping after 1 failures" (exit 2).
    if code in (1, 2) and failed:
        return f"{wall:.0f} s (`{_property(failed.group(1))}`)"
    if code != 0:
        raise RuntimeError(f"the {profile} run against {mutant}: exit {code}\n{out[-3000:]}")
    return f"not found ({wall:.0f} s: the whole run)"


def campaign_hunt(mutant: str, seconds: float, processes: int, work: Path) -> str:
    """A campaign from a fresh database, stopped at its first find."""
    run_dir = work / f"{mutant}-campaign"
    run_dir.mkdir()
    target = f"mrv2_conformance.tests.mutants.{mutant}"
    start = time.monotonic()
    out = _campaign(
        seconds, processes, str(run_dir / "db"), run_dir, "--target", target, "--exitfirst"
    )
    wall = time.monotonic() - start
    finds = sorted(FOUND.findall(out), key=lambda f: float(f[1]))
    if not finds:
        return f"none in {seconds:g} s"
    nodeid, after, _ = finds[0]
    return f"{float(after):.0f} s (`{_property(nodeid)}`; the process {wall:.0f} s)"


def table(hunts: list[Hunt], args: argparse.Namespace) -> str:
    from hypothesis import __version__ as hypothesis_version

    machine = f"{os.cpu_count()} CPUs, Python {platform.python_version()}"
    lines = [
        f"Measured by `python -m mrv2_conformance.campaign.time_to_find --campaign-seconds "
        f"{args.campaign_seconds:g} -n {args.processes}` in the campaign env (`tox -e "
        f"campaign`: Hypothesis {hypothesis_version}), on {machine}, on "
        f"{time.strftime('%Y-%m-%d')}.",
        "",
        f"| boundary | mutant | `ci` (one run, -n {args.processes}, -x) | `thorough` (one "
        f"run, -n {args.processes}, -x) | campaign ({args.processes} processes, first find, "
        f"{args.campaign_seconds:g} s at most) |",
        "|---|---|---|---|---|",
        *(f"| {h.boundary} | `{h.mutant}` | {h.ci} | {h.thorough} | {h.campaign} |" for h in hunts),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m mrv2_conformance.campaign.time_to_find")
    p.add_argument("--campaign-seconds", type=float, default=600.0)
    p.add_argument("-n", "--processes", type=int, default=os.cpu_count() or 1)
    p.add_argument("--write", type=Path, default=None, help="also write the table here")
    p.add_argument(
        "--mutant", action="append", default=None, help="only this boundary's mutant (repeatable)"
    )
    args = p.parse_args(argv)
    known = {m for _, m in BOUNDARIES}
    chosen = args.mutant or sorted(known)
    unknown = [m for m in chosen if m not in known]
    if unknown:
        listed = ", ".join(sorted(known))
        p.error(f"--mutant {', '.join(unknown)}: not a boundary mutant (one of {listed})")
    if args.campaign_seconds <= 0 or args.processes < 1:
        p.error("--campaign-seconds must be positive and -n at least 1")
    hunts = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for boundary, mutant in BOUNDARIES:
            if mutant not in chosen:
                continue
            hunt = Hunt(boundary, mutant)
            hunt.ci = plain_hunt(mutant, "ci", args.processes, work)
            hunt.thorough = plain_hunt(mutant, "thorough", args.processes, work)
            hunt.campaign = campaign_hunt(mutant, args.campaign_seconds, args.processes, work)
            hunts.append(hunt)
            print(f"{mutant}: {hunt}", flush=True)
    text = table(hunts, args)
    print(text)
    if args.write:
        args.write.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
