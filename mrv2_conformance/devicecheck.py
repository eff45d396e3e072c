"""``python -m mrv2_conformance.devicecheck`` (``./dev gpu-check``): the conformance
suite on a real accelerator and on the simulated device side by side, within one time
budget (docs/device.md, "A real GPU beside the simulated one").

Each device gets its own run of every property (the cpu variants included, so each
verdict is a whole run's), one after the other, in a subprocess of its own (a process
has one PrivateUse1 backend, and CUDA should not share it). Printed: each run's family
table and verdict, then the device variants side by side per family, and every
property whose outcome differs between the devices. The exit status is 0 only when
every device ran, in time, and its run passed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_DEVICES = ("cuda", "simdev")
DEFAULT_BUDGET_S = 300.0
OUTCOMES = ("passed", "failed", "skipped")


@dataclass
class Side:
    """One device's run."""

    device: str
    not_run: str = ""  # why it did not run ("" when it ran)
    returncode: int | None = None
    seconds: float = 0.0
    table: str = ""
    # property -> outcome of its device variant
    outcomes: dict[str, str] = field(default_factory=dict)
    families: dict[str, Counter[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.not_run and self.returncode == 0


def unavailable(device: str) -> str:
    """Why ``device`` cannot run here, in one line ("" when it can)."""
    import torch

    kind = device.partition(":")[0]
    if kind == "simdev":
        from mrv2_conformance import simdevice

        try:
            simdevice.load()
        except simdevice.SimDeviceUnavailable as exc:
            return f"the simulated device is unavailable: {exc}"
        return ""
    backend = getattr(torch, kind, None)
    is_available = getattr(backend, "is_available", None)
    if not callable(is_available) or not is_available():
        return f"no {kind} device is visible to torch {torch.__version__}"
    return ""


def family_table(output: str) -> str:
    """The run's family table and verdict: from its heading to the end."""
    lines = output.rstrip().splitlines()
    for i, line in enumerate(lines):
        if "by contract family" in line:
            return "\n".join(lines[i:])
    return "\n".join(lines[-15:])


def run_side(device: str, pytest_args: list[str], timeout: float) -> Side:
    side = Side(device)
    side.not_run = unavailable(device)
    if side.not_run:
        return side
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        cmd = [
            sys.executable,
            "-m",
            "mrv2_conformance",
            "--device",
            device,
            f"--conformance-report={report}",
            "-p",
            "no:cacheprovider",
            *pytest_args,
        ]
        start = time.monotonic()
        try:
            done = subprocess.run(
                cmd, capture_output=True, text=True, timeout=max(timeout, 1.0), check=False
            )
        except subprocess.TimeoutExpired:
            side.seconds = time.monotonic() - start
            side.not_run = f"timed out after {side.seconds:.0f} s (budget left: {timeout:.0f} s)"
            return side
        side.seconds = time.monotonic() - start
        side.returncode = done.returncode
        side.table = family_table(done.stdout + done.stderr)
        if report.exists():
            for rec in json.loads(report.read_text())["results"]:
                if rec.get("device", "cpu") == "cpu":
                    continue
                # Several indices of one device (serial, cuda:0, cuda:1): the worst.
                if side.outcomes.get(rec["property"]) != "failed":
                    side.outcomes[rec["property"]] = rec["outcome"]
                side.families.setdefault(rec["family"], Counter())[rec["outcome"]] += 1
    return side


def side_by_side(sides: list[Side]) -> str:
    """The device variants per family, one column group per device, then the
    properties whose outcome differs."""
    ran = [s for s in sides if not s.not_run]
    if not ran:
        return ""
    families = sorted({f for s in ran for f in s.families})
    head = f"{'family':<14}" + "".join(f"  {s.device + ' p/f/s':>20}" for s in ran)
    rows = [head]
    for fam in families:
        cells = []
        for s in ran:
            c = s.families.get(fam, Counter())
            cells.append(f"  {'/'.join(str(c[o]) for o in OUTCOMES):>20}")
        rows.append(f"{fam:<14}" + "".join(cells))
    rows.append(f"{'wall seconds':<14}" + "".join(f"  {s.seconds:>20.1f}" for s in ran))
    if len(ran) > 1:
        props = sorted({p for s in ran for p in s.outcomes})
        differ = [p for p in props if len({s.outcomes.get(p, "not run") for s in ran}) > 1]
        rows.append("")
        if differ:
            rows.append("outcomes that differ between the devices:")
            for p in differ:
                seen = ", ".join(f"{s.device} {s.outcomes.get(p, 'not run')}" for s in ran)
                rows.append(f"  {p}: {seen}")
        else:
            rows.append("every device variant has the same outcome on each device")
    return "\n".join(rows)


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(
        prog="python -m mrv2_conformance.devicecheck",
        description="The conformance suite on a real accelerator and on the simulated "
        "device, side by side. Arguments it does not know go to each run (pytest's, "
        "the suite's: --target, -m, -k ...).",
    )
    parser.add_argument(
        "--devices",
        default=",".join(DEFAULT_DEVICES),
        help="comma-separated devices, each run in turn (default: %(default)s)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=DEFAULT_BUDGET_S,
        help="seconds for all runs together (default: %(default)s)",
    )
    args, rest = parser.parse_known_args(argv)
    devices = [d.strip() for d in args.devices.split(",") if d.strip()]
    if not devices:
        parser.error("--devices names no device")
    if args.budget <= 0:
        parser.error(f"--budget must be positive, got {args.budget}")
    args.devices = devices
    if importlib.util.find_spec("xdist") and not any(
        a in ("-n", "-p") or a.startswith(("-n", "--numprocesses")) for a in rest
    ):
        rest = ["-n", "auto", *rest]
    return args, rest


def main(argv: list[str] | None = None) -> int:
    args, rest = parse(sys.argv[1:] if argv is None else argv)
    deadline = time.monotonic() + args.budget
    sides = []
    for i, device in enumerate(args.devices):
        left = deadline - time.monotonic()
        # An even share of what is left, the last device all of it.
        share = left / (len(args.devices) - i)
        side = run_side(device, rest, share if i < len(args.devices) - 1 else left)
        sides.append(side)
        print(f"== {device} ==")
        if side.not_run:
            print(f"not run: {side.not_run}")
        else:
            print(side.table)
        print(flush=True)
    table = side_by_side(sides)
    if table:
        print("== device variants side by side (passed/failed/skipped) ==")
        print(table)
    verdict = "; ".join(
        f"{s.device} {'passed' if s.ok else 'not run' if s.not_run else 'FAILED'}" for s in sides
    )
    print(f"devicecheck: {verdict}")
    return 0 if all(s.ok for s in sides) else 1


if __name__ == "__main__":
    sys.exit(main())
