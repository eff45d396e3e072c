"""The JSON conformance report and its Markdown rendering.

    mrv2-conformance --conformance-report reports/conformance.json
    python -m mrv2_conformance.plugin.report reports/conformance.json > conformance.md

One record per property run: property, family, target, device, outcome, and for a
failure every line of its message, the falsifying example and the reproduction
commands, recorded from the failure itself where it happened (not read back from
pytest's text).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mrv2_conformance.contract import FAMILIES, NO_DEVICE, NOT_APPLICABLE, OFF_DEVICE
from mrv2_conformance.plugin.completeness import per_family, tested_anything
from mrv2_conformance.plugin.verdict import overall, verdict_of
from mrv2_conformance.plugin.xfails import suite_nodeid

# The user property that carries a failure's record from where it happened (a hook
# that has the exception: plugin/reporter.py) to the report, also from xdist workers.
FAILURE = "mrv2_failure"


def record(report: Any) -> dict[str, Any] | None:
    """The record of one test report: its call, or its setup when that failed or
    skipped; None for phases that add nothing and for tests outside the families."""
    family = next((f for f in FAMILIES if f in report.keywords), None)
    if family is None:  # a report without the test's markers: xdist's for a crashed worker
        module = suite_nodeid(report.nodeid).partition("::")[0]
        family = next((f for f in FAMILIES if module == f"conformance/test_{f}.py"), None)
    if family is None:
        return None
    # xdist reports a test whose worker died with when="???".
    if not (
        report.when in ("call", "???") or (report.when == "setup" and report.outcome != "passed")
    ):
        return None
    name, _, param = suite_nodeid(report.nodeid).partition("[")
    outcome = report.outcome
    if hasattr(report, "wasxfail"):
        outcome = "xfailed" if report.skipped else "xpassed"
    rec: dict[str, Any] = {
        "property": name,
        "family": family,
        "device": param.rstrip("]") or "cpu",
        "outcome": outcome,
        "duration_s": round(report.duration, 3),
    }
    failure = next((v for k, v in report.user_properties if k == FAILURE), None)
    if report.failed:
        died = (
            "the process running this property died in a target call (the target killed it, "
            "or called os._exit); later calls of that function fail at once: "
            if report.when == "???"
            else ""
        )
        rec.update(
            failure
            or {
                "message": died + str(report.longrepr),
                "falsifying_example": "",
                "reproduction": "",
            }
        )
    elif report.skipped and isinstance(report.longrepr, tuple):
        rec["reason"] = str(report.longrepr[2])
        if NOT_APPLICABLE in rec["reason"]:  # contract.not_applicable's text
            rec["not_applicable"] = rec["reason"].partition(": lacks ")[2].partition(" (")[0]
        elif f"{NO_DEVICE}: " in rec["reason"]:
            rec["no_device"] = rec["reason"].partition(f"{NO_DEVICE}: ")[2]
        elif rec["reason"].startswith(f"{OFF_DEVICE} ("):  # plugin/offdevice.py's text
            rec["off_device"] = rec["reason"].partition("): ")[2]
    if hasattr(report, "wasxfail"):
        rec["reason"] = report.wasxfail
    for key, value in report.user_properties:
        if key == "contract_revision":
            rec["revision"] = value
        elif key == "slowest_call":
            rec["slowest_call"] = {"function": value[0], "seconds": value[1]}
    return rec


def write(path: Path, records: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    results = [{**r, "target": meta["target"]} for r in records]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")


class ReportFormatError(Exception):
    pass


_RESULT_KEYS = ("property", "family", "device", "outcome")
_OUTCOMES = ("passed", "failed", "skipped", "xfailed", "xpassed")


def validate(data: Any) -> None:
    """Raise ReportFormatError naming the first thing that is not a report's shape."""
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("meta"), dict)
        or not isinstance(data.get("results"), list)
    ):
        raise ReportFormatError(
            "expected an object with 'meta' (an object) and 'results' "
            "(a list), as --conformance-report writes"
        )
    for i, r in enumerate(data["results"]):
        if not isinstance(r, dict) or any(not isinstance(r.get(k), str) for k in _RESULT_KEYS):
            raise ReportFormatError(f"result {i} lacks one of {', '.join(_RESULT_KEYS)}")
        if r["family"] not in FAMILIES:
            raise ReportFormatError(
                f"result {i} ({r['property']}) has unknown family "
                f"{r['family']!r}; known: {', '.join(FAMILIES)}"
            )
        if r["outcome"] not in _OUTCOMES:
            raise ReportFormatError(
                f"result {i} ({r['property']}) has unknown outcome "
                f"{r['outcome']!r}; known: {', '.join(_OUTCOMES)}"
            )


def to_markdown(data: dict[str, Any]) -> str:
    meta, results = data["meta"], data["results"]
    interrupted = bool(meta.get("interrupted"))
    partial = list(meta.get("partial") or [])
    about = f" ({meta['target_description']})" if meta.get("target_description") else ""
    lines = [f"# MRV2 index-contract conformance: `{meta.get('target', '?')}`{about}", ""]
    if interrupted:
        lines += [
            "**INTERRUPTED: the run was stopped before it finished. These are the "
            "results of the properties that ran; they do not show conformance.**",
            "",
        ]
    elif partial:
        lines += [
            f"**PARTIAL RUN ({'; '.join(partial)}): these are the results of the "
            f"properties it selected; they do not show conformance.**",
            "",
        ]
    if results and tested_anything(results):
        line = overall(
            meta.get("target", "?"), results, interrupted, partial, meta.get("lacks", {})
        )
        lines += [f"**{line}**", ""]
    if meta.get("disclosures"):
        lines += ["What the target replaced or generated:", ""]
        lines += [f"- {d}" for d in meta["disclosures"]] + [""]
    lines += [
        f"{meta.get('versions', '')}; devices: {meta.get('devices', '')}; "
        f"Hypothesis profile `{meta.get('profile', '?')}`, seed {meta.get('seed', '?')}",
        "",
        "| family | passed | failed | xfailed | skipped | verdict |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for family, c in per_family(results).items():
        verdict = verdict_of(c, interrupted=interrupted, partial=bool(partial))
        verdict = f"**{verdict}**" if verdict != "conforms" else verdict
        lines.append(
            f"| {family} | {c['passed']} | {c['failed']} | "
            f"{c['xfailed']} | {c['skipped']} | {verdict} |"
        )
    failures = [r for r in results if r["outcome"] in ("failed", "xpassed")]
    if failures:
        lines += ["", "## Failures", ""]
        for r in failures:
            lines += [
                f"### `{r['property']}` ({r['family']}, {r['device']})",
                "",
                "```text",
                r.get("message", "") or r["outcome"],
                "```",
                "",
            ]
            if r.get("falsifying_example"):
                lines += ["```", r["falsifying_example"], "```", ""]
            if r.get("reproduction"):
                lines += ["Reproduce with:", "", "```sh", r["reproduction"], "```", ""]
    known = [r for r in results if r["outcome"] == "xfailed"]
    if known:
        lines += ["", "## Known non-conformance (xfails)", ""]
        lines += [f"- `{r['property']}` [{r['device']}]: {r.get('reason', '')}" for r in known]
    if meta.get("rerun") and (failures or interrupted):
        lines += ["", "Rerun this run with:", "", "```sh", meta["rerun"], "```"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(
            "usage: python -m mrv2_conformance.plugin.report REPORT.json > REPORT.md",
            file=sys.stderr,
        )
        return 2
    path = Path(argv[0])
    try:
        data = json.loads(path.read_text())
        validate(data)
    except (OSError, ValueError, ReportFormatError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(f"cannot render conformance report {path}: {reason}", file=sys.stderr)
        return 2
    sys.stdout.write(to_markdown(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
