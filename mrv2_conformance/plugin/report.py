"""The JSON conformance report and its Markdown rendering.

    mrv2-conformance --conformance-report reports/conformance.json
    python -m mrv2_conformance.plugin.report reports/conformance.json > conformance.md

One record per property run: property, family, target, device, outcome, and for a
failure the message, the shrunk falsifying example and its reproduction snippet.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from mrv2_conformance.contract import FAMILIES

# Hypothesis' sections inside pytest's failure text, whose lines carry a gutter: "E"
# for one failure, "    |" for an exception group (several distinct failures).
_GUTTER = r"(?:E|[ \t]+\|)"
_E = rf"^{_GUTTER}?[ \t]*"
_SECTIONS = rf"{_E}(?:Reproduce with:|Explanation:|You can reproduce)"
_EXAMPLE = re.compile(rf"(^{_GUTTER}?[ \t]*"
                      r"(?:(?:Falsifying|Failing) (?:explicit )?example|Failing test case): .*?)"
                      rf"(?={_SECTIONS}|\Z)", re.M | re.S)
_SNIPPET = re.compile(rf"{_E}Reproduce with:\n(.*?)(?={_E}$|{_SECTIONS}|\Z)", re.M | re.S)
# The raised exception's own line, "Name: message" (not the group's summary line).
_MESSAGE = re.compile(rf"^{_GUTTER}[ \t]*((?!ExceptionGroup)[A-Za-z_][\w.]*: .+)$", re.M)
_FIRST_LINE = re.compile(r"^E[ \t]+(\S.*)$", re.M)  # e.g. a bare "assert x == y"
# The lines of a multi-field ContractViolation ("N contract failures:" then "- ...").
_LIST_ITEM = re.compile(rf"\n{_GUTTER}?[ \t]*(- .*)")


def _strip_e(text: str) -> str:
    """Drop the gutter, then the block's common indentation (pytest indents deeper
    when the assertion was raised inside a helper)."""
    lines = [re.sub(rf"^{_GUTTER}", "", line) for line in text.splitlines()]
    return textwrap.dedent("\n".join(lines)).strip()


def parse_failure(longrepr: str) -> dict[str, str]:
    """The assertion message, falsifying example and snippet from a failure's text."""
    example = _EXAMPLE.search(longrepr)
    # The raised exception is the last one before Hypothesis' example (a chained
    # cause, e.g. the TypeError behind a ContractViolation, is printed above it).
    before = list(_MESSAGE.finditer(longrepr, 0, example.start())) if example else []
    message = (before[-1] if before else _MESSAGE.search(longrepr)) or \
        _FIRST_LINE.search(longrepr)
    snippet = _SNIPPET.search(longrepr)
    # pytest.fail(..., pytrace=False) prints the bare message, with no gutter.
    bare = next((line.strip() for line in longrepr.splitlines() if line.strip()), "")
    text = message.group(1).strip() if message else bare
    if message is not None:  # the failure lines that follow it, one per field
        pos, items = message.end(), []
        while (item := _LIST_ITEM.match(longrepr, pos)) is not None:
            items.append(item.group(1).strip())
            pos = item.end()
        text = "\n".join([text, *items])
    return {"message": text,
            "falsifying_example": _strip_e(example.group(1)) if example else "",
            "reproduction": _strip_e(snippet.group(1)) if snippet else ""}


def verdict_of(counts: dict[str, int], interrupted: bool = False) -> str:
    """A family conforms only if it has passes and no failure *and no known
    deviation*: an xfail is a documented non-conformance, not a pass. An interrupted
    run never says a family conforms."""
    if counts.get("failed"):
        return "NON-CONFORMING"
    if interrupted:
        return "incomplete (interrupted)"
    if counts.get("xfailed"):
        return "known deviations"
    return "conforms" if counts.get("passed") else "not checked"


def overall(target: str, records: list[dict[str, Any]], interrupted: bool = False) -> str:
    """One line: whether the target conforms to the contract revision it claims."""
    claimed = sorted({r["revision"] for r in records if r.get("revision")})
    revision = " / ".join(map(repr, claimed)) or "(unknown)"
    tally = Counter(r["outcome"] for r in records)
    failed = tally["failed"] + tally["xpassed"]
    if failed:
        return (f"{target} does NOT conform to contract revision {revision}: {failed} "
                f"failed")
    if interrupted:
        return f"{target}: incomplete (interrupted) against contract revision {revision}"
    if tally["xfailed"]:  # documented is not conforming
        return (f"{target} does not conform to contract revision {revision}: "
                f"{tally['xfailed']} known deviations (xfails), no other failure")
    return f"{target} conforms to contract revision {revision}"


def record(report: Any) -> dict[str, Any] | None:
    """The record of one test report: its call, or its setup when that failed or
    skipped; None for phases that add nothing and for tests outside the families."""
    family = next((f for f in FAMILIES if f in report.keywords), None)
    if family is None:
        return None
    if not (report.when == "call" or (report.when == "setup" and report.outcome != "passed")):
        return None
    name, _, param = report.nodeid.partition("[")
    outcome = report.outcome
    if hasattr(report, "wasxfail"):
        outcome = "xfailed" if report.skipped else "xpassed"
    rec: dict[str, Any] = {"property": name, "family": family,
                           "device": param.rstrip("]") or "cpu", "outcome": outcome,
                           "duration_s": round(report.duration, 3)}
    if report.failed:
        rec.update(parse_failure(str(report.longrepr)))
    elif report.skipped and isinstance(report.longrepr, tuple):
        rec["reason"] = str(report.longrepr[2])
    if hasattr(report, "wasxfail"):
        rec["reason"] = report.wasxfail
    for key, value in report.user_properties:
        if key == "contract_revision":
            rec["revision"] = value
    return rec


def write(path: Path, records: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    results = [{**r, "target": meta["target"]} for r in records]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")


def tested_anything(records: list[dict[str, Any]]) -> bool:
    """Whether any property ran to a verdict (skips test nothing)."""
    return any(r["outcome"] != "skipped" for r in records)


def per_family(records: list[dict[str, Any]]) -> dict[str, Counter]:
    """Outcome counts per family, in FAMILIES order; an unexpected pass counts as a
    failure (the target no longer deviates as documented)."""
    per: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        outcome = "failed" if r["outcome"] == "xpassed" else r["outcome"]
        per[r["family"]][outcome] += 1
    return {f: per[f] for f in FAMILIES if f in per}


class ReportFormatError(Exception):
    pass


_RESULT_KEYS = ("property", "family", "device", "outcome")
_OUTCOMES = ("passed", "failed", "skipped", "xfailed", "xpassed")


def validate(data: Any) -> None:
    """Raise ReportFormatError naming the first thing that is not a report's shape."""
    if not isinstance(data, dict) or not isinstance(data.get("meta"), dict) \
            or not isinstance(data.get("results"), list):
        raise ReportFormatError("expected an object with 'meta' (an object) and 'results' "
                                "(a list), as --conformance-report writes")
    for i, r in enumerate(data["results"]):
        if not isinstance(r, dict) or any(not isinstance(r.get(k), str) for k in _RESULT_KEYS):
            raise ReportFormatError(f"result {i} lacks one of {', '.join(_RESULT_KEYS)}")
        if r["family"] not in FAMILIES:
            raise ReportFormatError(f"result {i} ({r['property']}) has unknown family "
                                    f"{r['family']!r}; known: {', '.join(FAMILIES)}")
        if r["outcome"] not in _OUTCOMES:
            raise ReportFormatError(f"result {i} ({r['property']}) has unknown outcome "
                                    f"{r['outcome']!r}; known: {', '.join(_OUTCOMES)}")


def to_markdown(data: dict[str, Any]) -> str:
    meta, results = data["meta"], data["results"]
    interrupted = bool(meta.get("interrupted"))
    about = f" ({meta['target_description']})" if meta.get("target_description") else ""
    lines = [f"# MRV2 index-contract conformance: `{meta.get('target', '?')}`{about}", ""]
    if interrupted:
        lines += ["**INTERRUPTED: the run was stopped before it finished. These are the "
                  "results of the properties that ran; they do not show conformance.**", ""]
    if results and tested_anything(results):
        lines += [f"**{overall(meta.get('target', '?'), results, interrupted)}**", ""]
    if meta.get("disclosures"):
        lines += ["What the target replaced or generated:", ""]
        lines += [f"- {d}" for d in meta["disclosures"]] + [""]
    lines += [f"{meta.get('versions', '')}; devices: {meta.get('devices', '')}; "
              f"Hypothesis profile `{meta.get('profile', '?')}`, seed {meta.get('seed', '?')}",
              "",
              "| family | passed | failed | xfailed | skipped | verdict |",
              "|---|---:|---:|---:|---:|---|"]
    for family, c in per_family(results).items():
        verdict = verdict_of(c, interrupted=interrupted)
        verdict = f"**{verdict}**" if verdict != "conforms" else verdict
        lines.append(f"| {family} | {c['passed']} | {c['failed']} | "
                     f"{c['xfailed']} | {c['skipped']} | {verdict} |")
    failures = [r for r in results if r["outcome"] in ("failed", "xpassed")]
    if failures:
        lines += ["", "## Failures", ""]
        for r in failures:
            lines += [f"### `{r['property']}` ({r['family']}, {r['device']})", "",
                      r.get("message", "") or r["outcome"], ""]
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
        print("usage: python -m mrv2_conformance.plugin.report REPORT.json > REPORT.md",
              file=sys.stderr)
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
