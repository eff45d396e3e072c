"""The release tables of docs/results/ (docs/vllm.md), from conformance reports.

    python -m mrv2_conformance.releases reports/vllm-0*.json
    python -m mrv2_conformance.releases --without-revisions reports/vllm-ascend-*.json

Each report is one run (``tox -m vllm`` writes ``reports/vllm-<release>.json``). The
release table has a row per report: the release, the contract revision it claims,
each family's verdict, and the date and suite commit of the run. Below it, every
documented deviation (the xfails reasons, with the upstream lines each release's
source has) and the releases it shows in.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from mrv2_conformance.contract import revision_table
from mrv2_conformance.contract import FAMILIES
from mrv2_conformance.plugin.xfails import CITED
from mrv2_conformance.plugin.report import (
    ReportFormatError,
    per_family,
    validate,
    verdict_of,
)

_VERSION = re.compile(r"vLLM (\d[\w.]*\w)")
# An xfailed result's reason: "<reason> (<file>:<line>)", joined by "; " when several
# entries matched (a reason may hold "; " itself).
_REASON = re.compile(r"(.+?) \([\w.-]+\.txt:\d+\)(?:; |$)", re.S)


def _release(meta: dict[str, Any]) -> str:
    m = _VERSION.search(meta.get("target_description", ""))
    return m.group(1) if m else meta.get("target", "?")


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in release.split("."))


def _cell(counts: dict[str, int]) -> str:
    verdict = verdict_of(counts)
    if verdict == "known deviations":
        return f"{counts['passed']} pass, {counts['xfailed']} deviate"
    if verdict == "NON-CONFORMING":
        return f"**{counts['failed']} FAIL**"
    return verdict if verdict != "conforms" else f"conforms ({counts['passed']})"


def release_table(reports: list[dict[str, Any]]) -> str:
    families = [f for f in FAMILIES if any(r["family"] == f for d in reports for r in d["results"])]
    head = ["release", "revision", *families, "run (UTC date, suite commit)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for data in sorted(reports, key=lambda d: _key(_release(d["meta"]))):
        meta, tally = data["meta"], per_family(data["results"])
        cells = [_cell(tally[f]) if f in tally else "not run" for f in families]
        run = f"{meta.get('date', '?')[:10]}, `{meta.get('suite_commit', '?')[:12]}`"
        lines.append(
            f"| {_release(meta)} | `{meta.get('contract_revision') or '?'}` | "
            + " | ".join(cells)
            + f" | {run} |"
        )
    return "\n".join(lines)


def deviations(reports: list[dict[str, Any]]) -> str:
    """Each documented deviation once, with every release it shows in and the line it
    cites there (a citation's line moves between releases; its text does not)."""
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for data in reports:
        release = _release(data["meta"])
        for r in data["results"]:
            if r["outcome"] != "xfailed":
                continue
            for reason in _REASON.findall(r.get("reason", "")):
                text = CITED.sub(r"\1::\3", reason)  # the citation as written
                lines = [n for _, n, _ in CITED.findall(reason)]
                seen[text][release].add(" & L".join(lines) or "-")
    out = []
    for text, where in sorted(seen.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        releases = ", ".join(
            f"{rel}" + (f" (L{'/'.join(sorted(ls))})" if ls != {"-"} else "")
            for rel, ls in sorted(where.items(), key=lambda kv: _key(kv[0]))
        )
        out.append(f"- {text}  \n  *{releases}*")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    with_revisions = "--without-revisions" not in args
    paths = [Path(p) for p in args if p != "--without-revisions"]
    if not paths:
        print(
            "usage: python -m mrv2_conformance.releases [--without-revisions] REPORT.json ...",
            file=sys.stderr,
        )
        return 2
    reports = []
    for path in paths:
        try:
            data = json.loads(path.read_text())
            validate(data)
        except (OSError, ValueError, ReportFormatError) as exc:
            print(f"cannot read conformance report {path}: {exc}", file=sys.stderr)
            return 2
        reports.append(data)
    if with_revisions:
        sys.stdout.write("### Contract revisions\n\n" + revision_table() + "\n\n")
    sys.stdout.write(
        "### Releases\n\n" + release_table(reports) + "\n\n"
        "### Documented deviations (xfails), and where they show\n\n" + deviations(reports) + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
