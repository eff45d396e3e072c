"""Checks of the command line that run before collection: each bad input ends the run
with one ``ERROR:`` line naming it and pytest's usage-error exit (4), instead of a
traceback, a hang, or a green run that tested nothing."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest


def check_report_path(path: Path | None) -> None:
    """The JSON report must be writable now, not only after the whole run."""
    if path is None:
        return
    if path.is_dir():
        raise pytest.UsageError(f"--conformance-report {path}: is a directory, not a file")
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a"):
            pass
    except OSError as exc:
        raise pytest.UsageError(
            f"--conformance-report {path}: cannot be written: {exc.strerror or exc}"
        ) from None
    if not existed:
        path.unlink()


def check_example_databases(save: str | None, replay: str | None) -> None:
    """A directory or a Redis URL (mrv2_conformance/exampledb.py); a Redis server must
    answer now, and a replay needs something saved."""
    from mrv2_conformance import exampledb

    if save and replay:
        raise pytest.UsageError("--save-failures and --replay are exclusive")
    option, location = ("--replay", replay) if replay else ("--save-failures", save)
    if not location:
        return
    if not exampledb.is_url(location):
        path = Path(location)
        if path.exists() and not path.is_dir():
            raise pytest.UsageError(f"{option} {location}: is a file, not an example database")
        if replay and not path.is_dir():
            raise pytest.UsageError(f"--replay {location}: no such example database")
    try:
        if replay and not exampledb.holds_examples(location):
            raise pytest.UsageError(
                f"--replay {exampledb.redact(location)}: the example database is empty "
                f"(nothing was saved there by --save-failures or a campaign)"
            )
        if save and exampledb.is_url(save):
            exampledb.open_database(save)
    except exampledb.DatabaseError as exc:
        raise pytest.UsageError(f"{option} {exc}") from None


def selects(markexpr: str, marks: set[str]) -> bool:
    """Whether ``-m markexpr`` selects a test that carries ``marks`` (true for a bad
    expression: pytest reports it itself)."""
    if not markexpr:
        return True
    from _pytest.mark.expression import Expression  # pytest's own -m parser

    try:
        expr = Expression.compile(markexpr)
    except SyntaxError:
        return True

    def matcher(name: str, /, **_: str | int | bool | None) -> bool:
        return name in marks

    return bool(expr.evaluate(matcher))


def requires_device(markexpr: str, markers: list[str]) -> bool:
    """Whether ``-m markexpr`` selects no test that runs without an accelerator: false
    for every test's markers (one of ``markers``, or none, each with or without
    Hypothesis' own ``hypothesis`` mark, which HypoFuzz selects by) without ``gpu``."""
    one_each = [set(), *({m} for m in markers)]
    return bool(markexpr) and not any(
        selects(markexpr, k | extra) for k in one_each for extra in (set(), {"hypothesis"})
    )


def check_devices(
    device_type: str,
    named: bool,
    markexpr: str,
    found: Callable[[], list[str]],
    markers: list[str],
    why: Callable[[], str] | None = None,
) -> None:
    """A run whose accelerator part would all skip is an error, not a pass. ``found``
    (which imports torch) is called only when the run needs an accelerator."""
    if named and device_type == "cpu":
        raise pytest.UsageError(
            "--device cpu: cpu is always tested; --device names an "
            "accelerator device type (cuda, xpu, npu, ...)"
        )
    if device_type == "none":  # a host-only run, asked for
        return
    if not (named or requires_device(markexpr, markers)) or found():
        return
    import torch

    where = why() if why else f"no {device_type} device is visible to torch {torch.__version__}"
    if named:
        raise pytest.UsageError(f"--device {device_type}: {where}")
    raise pytest.UsageError(f"-m {markexpr!r} selects only accelerator tests, and {where}")


def _cpu_times() -> tuple[int, int] | None:
    """(idle, total) jiffies of all CPUs since boot, from /proc/stat (Linux)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return fields[3] + fields[4], sum(fields[:8])  # idle + iowait; without guest time


def idle_cpus(sample_s: float = 0.1) -> float | None:
    """How many of this process's CPUs were idle over a short sample; None where the
    system does not say (not Linux)."""
    before = _cpu_times()
    if before is None:
        return None
    time.sleep(sample_s)
    after = _cpu_times()
    if after is None or after[1] <= before[1]:
        return None
    online = os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else online
    idle = (after[0] - before[0]) / (after[1] - before[1]) * online
    return min(idle, usable)


def check_target_exists(name: str) -> None:
    """The target module can be found (without importing it): a misspelt --target is
    one line and exit 4 on an xdist controller too. An error inside the module shows
    when the workers import it."""
    import importlib.util

    try:
        found = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError) as exc:  # a parent package is missing or broken
        raise pytest.UsageError(
            f"cannot import conformance target {name!r}: {type(exc).__name__}: {exc}"
        ) from None
    if not found:
        raise pytest.UsageError(
            f"cannot import conformance target {name!r}: "
            f"ModuleNotFoundError: No module named {name!r}"
        )
