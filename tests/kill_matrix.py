"""Run the conformance suite against targets in subprocesses and tabulate which
properties each one fails: the kill matrix of the negative controls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Run:
    target: str
    outcomes: dict[str, str] = field(default_factory=dict)  # property -> outcome
    messages: dict[str, str] = field(default_factory=dict)  # property -> first line
    returncode: int = 0
    stderr: str = ""
    # property -> [reproduction command(s), message] of its first failure
    reproductions: dict[str, list[str]] = field(default_factory=dict)

    def failed(self) -> list[str]:
        return sorted(p for p, o in self.outcomes.items() if o == "failed")


def family_of(prop: str) -> str:
    """conformance/test_<family>.py::test_x -> <family>"""
    return prop.split("::")[0].rsplit("/test_", 1)[1].removesuffix(".py")


def run_conformance(target: str, profile: str = "kill") -> Run:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MRV2_"))}
    env["HYPOTHESIS_PROFILE"] = profile
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        report = Path(tmp) / "report.json"
        no_xfails = Path(tmp) / "no-xfails.txt"  # a target's xfails file must not hide a kill
        no_xfails.write_text("")
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "conformance", "-p", "no:xdist", "-q",
             "--target", target, f"--junitxml={junit}", "-o", "junit_family=xunit1",
             f"--xfails={no_xfails}", f"--conformance-report={report}"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
        run = Run(target, returncode=proc.returncode, stderr=proc.stderr[-2000:])
        if report.exists():
            for rec in json.loads(report.read_text())["results"]:
                if rec["outcome"] == "failed" and rec.get("reproduction"):
                    run.reproductions.setdefault(
                        rec["property"], [rec["reproduction"], rec.get("message", "")])
        if not junit.exists():
            return run
        for case in ET.parse(junit).iter("testcase"):
            module = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
            name = case.get("name", "").split("[")[0]
            prop = f"{module}::{name}"
            bad = case.find("failure") if case.find("failure") is not None else case.find("error")
            if bad is not None:
                run.outcomes[prop] = "failed"
                run.messages.setdefault(prop, (bad.get("message") or "").splitlines()[0][:200]
                                        if bad.get("message") else "")
            elif case.find("skipped") is not None:
                run.outcomes.setdefault(prop, "skipped")
            else:
                if run.outcomes.get(prop) != "failed":
                    run.outcomes[prop] = "passed"
        return run


def run_all(targets: list[str], workers: int | None = None) -> dict[str, Run]:
    workers = workers or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return dict(zip(targets, pool.map(run_conformance, targets), strict=False))


def to_json(runs: dict[str, Run]) -> str:
    return json.dumps({t: {"outcomes": r.outcomes, "messages": r.messages,
                           "returncode": r.returncode, "stderr": r.stderr,
                           "reproductions": r.reproductions}
                       for t, r in runs.items()}, indent=1, sort_keys=True)


def from_json(text: str) -> dict[str, Run]:
    return {t: Run(t, d["outcomes"], d["messages"], d["returncode"], d["stderr"],
                   d["reproductions"])
            for t, d in json.loads(text).items()}


def format_matrix(runs: dict[str, Run], families: list[str],
                  named: dict[str, str]) -> str:
    """mutant x family: the number of that family's properties that killed it;
    '*' marks the mutant's named family."""
    width = max(len(t.rsplit(".", 1)[-1]) for t in runs)
    head = f"{'mutant':<{width}}  " + " ".join(f"{f[:11]:>11}" for f in families)
    lines = [head, "-" * len(head)]
    killed = 0
    for target, run in runs.items():
        short = target.rsplit(".", 1)[-1]
        per_family = {f: sum(family_of(p) == f for p in run.failed()) for f in families}
        marks = [(str(per_family[f]) if per_family[f] else ".")
                 + ("*" if named.get(target) == f else " ") for f in families]
        cells = [f"{m:>11}" for m in marks]
        killed += any(per_family.values())
        lines.append(f"{short:<{width}}  " + " ".join(cells))
    lines.append(f"{killed}/{len(runs)} mutants killed; * = the mutant's named family")
    return "\n".join(lines)
