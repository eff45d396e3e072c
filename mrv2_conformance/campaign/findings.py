"""What a campaign left in its example database, per property: the examples HypoFuzz's
workers ran (their progress reports), its finds (shrunk failures, which Hypothesis
replays from the same key), and what could not run at all (HypoFuzz's fatal errors);
each find with the command that replays it in a plain run."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Property:
    nodeid: str
    examples: int = 0
    seconds: float = 0.0  # summed over the workers that ran it
    finds: list[str] = field(default_factory=list)  # one line per shrunk failure
    found_at: list[float] = field(default_factory=list)  # when each was recorded (Unix)
    # Finds whose last run by HypoFuzz (the shrunk example, run once more to record it)
    # did not fail: flaky in the campaign's process; the replay tells.
    unconfirmed: list[str] = field(default_factory=list)
    fatal: str = ""  # why HypoFuzz could not run it, if it could not

    @property
    def pyargs(self) -> str:
        """The node id as the mrv2-conformance command names a test (--pyargs)."""
        path, _, rest = self.nodeid.partition("::")
        module = "mrv2_conformance." + path.removesuffix(".py").replace("/", ".")
        if rest.endswith("::runTest"):  # a unittest case (campaign/stateful.py)
            rest = rest.removesuffix("::runTest")
        return f"{module}::{rest}"


class CollectionError(Exception):
    """pytest could not collect (a bad target or option): its own lines, to print."""

    def __init__(self, lines: str, code: int) -> None:
        super().__init__(lines)
        self.code = code


def collect(pytest_args: Sequence[str]) -> list[Any]:
    """HypoFuzz's fuzz targets for these arguments, in this process (as each of its
    workers collects them). HypoFuzz prints pytest's whole output when it collects
    nothing; only pytest's error lines are kept, for a CollectionError."""
    import contextlib
    import io
    import os

    from hypofuzz.collection import collect_tests
    from mrv2_conformance.plugin.campaign import CAMPAIGN_ENV_VAR

    os.environ[CAMPAIGN_ENV_VAR] = "1"
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            return list(collect_tests(list(pytest_args)).fuzz_targets)
    except SystemExit as exc:
        text = out.getvalue()
        errors = [line for line in text.splitlines() if line.startswith("ERROR")]
        raise CollectionError("\n".join(errors) or text, int(exc.code or 4)) from None


def read(targets: Sequence[Any], database: Any, *, since: float = 0.0) -> list[Property]:
    """Each target's record in ``database``, counting only reports made at or after
    ``since`` (a Unix time: this campaign's, where the database holds earlier ones)."""
    from hypofuzz.database import FailureState, HypofuzzDatabase

    db = HypofuzzDatabase(database)
    rows = []
    for target in targets:
        row = Property(target.nodeid)
        last: dict[str, Any] = {}  # each worker's latest report: its totals
        for report in db.reports.fetch(target.database_key):
            if report.timestamp >= since and (
                report.worker_uuid not in last
                or report.elapsed_time >= last[report.worker_uuid].elapsed_time
            ):
                last[report.worker_uuid] = report
        row.examples = sum(sum(r.status_counts.values()) for r in last.values())
        row.seconds = sum(r.elapsed_time for r in last.values())
        shrunk = db.failures(state=FailureState.SHRUNK)
        observed = db.failure_observations(state=FailureState.SHRUNK)
        for choices in shrunk.fetch(target.database_key):
            observation = observed.fetch(target.database_key, choices)
            failed = observation is not None and observation.status.value == "failed"
            (row.finds if failed else row.unconfirmed).append(headline(observation))
            if failed:
                row.found_at.append(observation.run_start)
        fatal = db.fatal_failures.fetch(target.database_key)
        if fatal is not None:
            lines = [line for line in fatal.traceback.splitlines() if line.strip()]
            row.fatal = lines[-1] if lines else "an error before any example ran"
        rows.append(row)
    return rows


def found_since(targets: Sequence[Any], database: Any, since: float) -> bool:
    """Whether a find (a shrunk failure whose last run failed) was recorded at or after
    ``since`` for any of ``targets``: ``campaign --exitfirst`` polls it."""
    from hypofuzz.database import FailureState, HypofuzzDatabase

    db = HypofuzzDatabase(database)
    shrunk = db.failures(state=FailureState.SHRUNK)
    observed = db.failure_observations(state=FailureState.SHRUNK)
    for target in targets:
        for choices in shrunk.fetch(target.database_key):
            observation = observed.fetch(target.database_key, choices)
            if (
                observation is not None
                and observation.status.value == "failed"
                and observation.run_start >= since
            ):
                return True
    return False


def headline(observation: Any, width: int = 240) -> str:
    """The failure in one line: the first line of the exception pytest shows (its
    ``E`` lines), the first contract failure where several were raised together."""
    if observation is None:
        return "a failing example (its record was not written)"
    traceback = observation.metadata.traceback or ""
    shown = [line[1:].strip() for line in traceback.splitlines() if line.startswith("E ")]
    if not shown:
        return (observation.status_reason or "a failing example").splitlines()[0][:width]
    first = shown[0]
    name, sep, message = first.partition(": ")
    if sep and "." in name:  # a module-qualified exception name: its own name is enough
        first = f"{name.rsplit('.', 1)[1]}: {message}"
    if first.endswith("contract failures:") and len(shown) > 1:
        first = f"{first} {shown[1]}"
    return first if len(first) <= width else first[: width - 3] + "..."


def replay_command(row: Property, target: str, location: str, extra: Sequence[str] = ()) -> str:
    from mrv2_conformance.exampledb import redact

    return shlex.join(
        [
            "mrv2-conformance",
            "--target",
            target,
            "--replay",
            redact(location),
            *extra,
            row.pyargs,
        ]
    )
