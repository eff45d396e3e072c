"""What a run of the suite says: the per-family summary and its last line,
the JSON report, and each failure's reproduction commands. Registered as a plugin only
in runs of the suite; the records it reads are on the config (plugin/session.py)."""

from __future__ import annotations

import datetime
import sys
from collections.abc import Generator
from typing import Any, cast

import pytest
from mrv2_conformance.plugin import completeness, deviations, reproduce, timeouts
from mrv2_conformance.plugin import report as conformance_report
from mrv2_conformance.plugin.header import suite_commit, run_meta
from mrv2_conformance.plugin.session import run
from mrv2_conformance.plugin.targets import is_property


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """The revision and the target's disclosures travel with each report (also from
    xdist workers), and so does a failed property's record, taken from the exception
    itself (plugin/reproduce.py)."""
    rep = yield
    if rep.failed and call.excinfo is not None and is_property(item):
        exc, name = call.excinfo.value, run(item.config).target_name
        reproduce.on_report(rep, item, exc, name)
        rep.user_properties.append(
            (conformance_report.FAILURE, reproduce.failure_record(item, exc, name))
        )
        if timeouts.is_hang(exc):
            rep.longrepr = timeouts.timeout_text(exc, name)
    if rep.when != "call":
        return rep
    slowest = _slowest_call()
    if slowest is not None:
        rep.user_properties.append(("slowest_call", slowest))
    loaded = run(item.config).target
    if loaded is not None and loaded.module is not None:
        rep.user_properties.append(("contract_revision", loaded.revision))
        disclosures = getattr(loaded.module, "DISCLOSURES", ())
        if disclosures:
            rep.user_properties.append(("target_disclosures", list(disclosures)))
    return rep


def _slowest_call() -> tuple[str, float] | None:
    """The slowest target call of the test that just ran (conformance/deadline.py; not
    imported here: a run that calls no target function never loads it)."""
    deadline = sys.modules.get("mrv2_conformance.conformance.deadline")
    return None if deadline is None else deadline.take_slowest()


class Records:
    """Keeps one record per property run (plugin/report.py) on the run's state: the
    summary and the JSON report are both read from it. An instance, since
    ``pytest_runtest_logreport`` is not given the config; on the xdist controller it
    sees every worker's reports."""

    def __init__(self, config: pytest.Config) -> None:
        self.state = run(config)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        rec = conformance_report.record(report)
        if rec is not None:
            self.state.records.append(rec)
        for key, value in report.user_properties:
            lines = cast("list[str]", value)
            if key == "xfails_used":
                self.state.xfails_used.update(lines)
            elif key == "target_disclosures" and not self.state.disclosures:
                self.state.disclosures.extend(lines)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if hasattr(config, "workerinput"):
        return
    state = run(config)
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
    if state.records and not interrupted and not completeness.tested_anything(state.records):
        # Every selected property skipped: nothing was tested, which is not a pass.
        session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED
    state.partial = completeness.partial_reasons(config, session, state.records, interrupted)
    path = config.getoption("--conformance-report")
    if path is not None:
        conformance_report.write(
            path,
            state.records,
            {
                **run_meta(config),
                "interrupted": interrupted,
                "partial": state.partial,
                "checked": completeness.checked(state.records),
                "suite_commit": suite_commit(),
                "disclosures": list(state.disclosures),
                "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            },
        )


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    tr, state = terminalreporter, run(config)
    for line in deviations.unused_warnings(config):
        tr.write_line(line, yellow=True)
    if state.disclosures:
        tr.section("what the target replaced or generated (its DISCLOSURES)")
        for line in state.disclosures:
            tr.write_line(line)
    if not state.records:
        return
    tally = completeness.per_family(state.records)
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
    partial = state.partial
    tr.section(
        f"conformance of {state.target_name} by contract family"
        + (
            " (INTERRUPTED: incomplete)"
            if interrupted
            else " (PARTIAL RUN: not a conformance result)"
            if partial
            else ""
        )
    )
    cols = ("passed", "failed", "skipped", "xfailed")
    tr.write_line(f"{'family':<14}" + "".join(f"{c:>9}" for c in cols) + "  verdict")
    for family, counts in tally.items():
        verdict = conformance_report.verdict_of(
            counts, interrupted=interrupted, partial=bool(partial)
        )
        tr.write_line(f"{family:<14}" + "".join(f"{counts[c]:>9}" for c in cols) + f"  {verdict}")
    if not completeness.tested_anything(state.records):
        tr.write_line(
            "nothing was tested: every selected property skipped (see -rs); the run fails", red=True
        )
    else:
        line = conformance_report.overall(
            state.target_name,
            state.records,
            interrupted,
            partial,
            state.target.lacks if state.target is not None else {},
        )
        tr.write_line(line, bold=True, green=" conforms " in line, red="NOT" in line)
    if any(r["outcome"] in ("failed", "xpassed") for r in state.records) or interrupted:
        tr.write_line(f"rerun this run with: {reproduce.rerun_command(config)}", bold=True)
