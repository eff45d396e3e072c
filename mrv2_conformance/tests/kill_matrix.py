"""Run the conformance suite against targets and tabulate which properties each one
fails: the kill matrix of the negative controls.

Two schedules decide the same two facts exactly: every mutant is killed by its named
family, and every property kills some mutant.

- full (``python -m mrv2_conformance.tests.kill_matrix``): every property against
  every target; prints the whole matrix.
- lazy (``Matrix``, what ``tests/test_negative_controls.py`` uses): the reference runs
  every property; each mutant runs its named family's properties (the first fact);
  then each property that none of those runs killed runs against the mutants in turn
  until one kills it (the second fact). A property that already killed a mutant
  cannot change either fact on another mutant, so it is not run there.

Runs are forks of one warm process (``tests/warm.py``), not a fresh interpreter each.
"""

from __future__ import annotations

import fcntl
import importlib
import inspect
import json
import os
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from mrv2_conformance.contract import FAMILIES
from mrv2_conformance.tests.mutants import mutant_names
from mrv2_conformance.tests.warm import WarmRunner

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = "mrv2_conformance.impl"
MUTANTS = [f"mrv2_conformance.tests.mutants.{m}" for m in mutant_names()]
RUN_TIMEOUT_S = 900


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

    def reproduced(self) -> set[str]:
        """The failed properties that recorded a reproduction command."""
        return set(self.failed()) & set(self.reproductions)


def family_of(prop: str) -> str:
    """conformance/test_<family>.py::test_x -> <family>"""
    return prop.split("::")[0].rsplit("/test_", 1)[1].removesuffix(".py")


def named_family(mutant: str) -> str:
    return importlib.import_module(mutant).FAMILY


def properties() -> list[str]:
    """Every property of the suite, as ``conformance/test_<family>.py::test_x``."""
    props = []
    for family in FAMILIES:
        module = importlib.import_module(f"mrv2_conformance.conformance.test_{family}")
        props += [
            f"conformance/test_{family}.py::{name}"
            for name, fn in inspect.getmembers(module, callable)
            if name.startswith("test_") and getattr(fn, "__module__", "") == module.__name__
        ]
    return sorted(props)


def _runner_env(profile: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MRV2_"))}
    env["HYPOTHESIS_PROFILE"] = profile
    return env


def run_conformance(
    target: str,
    profile: str = "kill",
    selection: list[str] | None = None,
    runner: WarmRunner | None = None,
    extra: tuple[str, ...] = (),
) -> Run:
    """The conformance suite (or the ``selection`` of its properties) against
    ``target``, as a subprocess or a fork of ``runner``."""
    runner = runner or WarmRunner(_runner_env(profile))
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        report = Path(tmp) / "report.json"
        output = Path(tmp) / "output.txt"
        no_xfails = Path(tmp) / "no-xfails.txt"  # a target's xfails file must not hide a kill
        no_xfails.write_text("")
        code = runner.run(
            [
                *(selection or ["conformance"]),
                "-p",
                "no:xdist",
                "-q",
                "-p",
                "no:cacheprovider",
                "--target",
                target,
                f"--junitxml={junit}",
                "-o",
                "junit_family=xunit1",
                f"--xfails={no_xfails}",
                f"--conformance-report={report}",
                *extra,
            ],
            cwd=ROOT,
            output=output,
            timeout=RUN_TIMEOUT_S,
        )
        run = Run(target, returncode=code, stderr=output.read_text(errors="replace")[-2000:])
        if report.exists():
            for rec in json.loads(report.read_text())["results"]:
                if rec["outcome"] == "failed" and rec.get("reproduction"):
                    run.reproductions.setdefault(
                        rec["property"], [rec["reproduction"], rec.get("message", "")]
                    )
        if not junit.exists():
            return run
        for case in ET.parse(junit).iter("testcase"):
            module = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
            name = case.get("name", "").split("[")[0]
            prop = f"{module}::{name}"
            bad = case.find("failure") if case.find("failure") is not None else case.find("error")
            if bad is not None:
                run.outcomes[prop] = "failed"
                run.messages.setdefault(
                    prop,
                    (bad.get("message") or "").splitlines()[0][:200] if bad.get("message") else "",
                )
            elif case.find("skipped") is not None:
                run.outcomes.setdefault(prop, "skipped")
            else:
                if run.outcomes.get(prop) != "failed":
                    run.outcomes[prop] = "passed"
        return run


class Matrix:
    """The lazy schedule: runs computed on demand and cached as JSON in ``cache_dir``,
    which pytest workers share (one file lock per target). A target's cached run
    grows as more of its properties are asked for; no property runs twice on it."""

    def __init__(self, cache_dir: Path, profile: str = "kill") -> None:
        self.cache_dir = cache_dir
        cache_dir.mkdir(parents=True, exist_ok=True)
        self.runner = WarmRunner(_runner_env(profile))
        self.properties = properties()

    def _path(self, target: str) -> Path:
        return self.cache_dir / f"{target}.json"

    def _load(self, target: str) -> Run:
        path = self._path(target)
        return Run(**json.loads(path.read_text())) if path.exists() else Run(target)

    def cached(self) -> dict[str, Run]:
        return {t: self._load(t) for t in [REFERENCE, *MUTANTS] if self._path(t).exists()}

    def killed(self) -> set[str]:
        """Properties that failed, with a reproduction command, on some mutant."""
        return {p for t, run in self.cached().items() if t != REFERENCE for p in run.reproduced()}

    @contextmanager
    def _locked(self, target: str) -> Iterator[None]:
        with open(self.cache_dir / f"{target}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def ensure(self, target: str, props: list[str]) -> Run:
        """``target``'s run, extended to cover ``props``."""
        with self._locked(target):
            run = self._load(target)
            missing = [p for p in props if p not in run.outcomes]
            if missing:
                more = run_conformance(target, selection=missing, runner=self.runner)
                if not more.outcomes:  # nothing ran: keep the output for the message
                    return more
                run.outcomes.update(more.outcomes)
                run.messages.update(more.messages)
                run.reproductions.update(more.reproductions)
                run.returncode = max(run.returncode, more.returncode)
                run.stderr = more.stderr
                # Readers take no lock (cached()): they must never see a half-written
                # file, so the new run replaces the old one whole.
                tmp = self._path(target).with_suffix(".json.tmp")
                tmp.write_text(json.dumps(run.__dict__))
                os.replace(tmp, self._path(target))
            return run

    def run(self, target: str) -> Run:
        """The reference: every property. A mutant: its named family's properties,
        which must kill it."""
        if target == REFERENCE:
            return self.ensure(target, self.properties)
        family = named_family(target)
        return self.ensure(target, [p for p in self.properties if family_of(p) == family])

    def cover(self, props: list[str]) -> None:
        """Run each of ``props`` that no mutant has killed yet against the mutants, in
        turn, until some mutant kills it or every mutant has survived it."""
        for target in MUTANTS:
            killed = self.killed()
            todo = [p for p in props if p not in killed]
            if not todo:
                return
            self.ensure(target, todo)

    def killer_of(self, prop: str) -> Run | None:
        """A mutant's run in which ``prop`` failed with a reproduction command."""
        self.cover([prop])
        return next(
            (
                run
                for t, run in self.cached().items()
                if t != REFERENCE and prop in run.reproduced()
            ),
            None,
        )

    def all(self) -> dict[str, Run]:
        """Every target's run, every property covered: enough to decide both
        directions of the matrix."""
        runs = {t: self.run(t) for t in [REFERENCE, *MUTANTS]}
        self.cover(self.properties)
        return {t: self._load(t) for t in runs}

    def close(self) -> None:
        self.runner.close()


def run_all(targets: list[str], workers: int | None = None) -> dict[str, Run]:
    """The full schedule: every property against every target."""
    workers = workers or os.cpu_count() or 1
    runners = [WarmRunner(_runner_env("kill")) for _ in range(workers)]
    free = list(runners)

    def one(target: str) -> Run:
        runner = free.pop()
        try:
            return run_conformance(target, runner=runner)
        finally:
            free.append(runner)

    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return dict(zip(targets, pool.map(one, targets), strict=True))
    finally:
        for runner in runners:
            runner.close()


def format_matrix(runs: dict[str, Run], families: list[str], named: dict[str, str]) -> str:
    """mutant x family: the number of that family's properties that killed it, of
    those that ran on it (all of them in the full schedule, fewer in the lazy one);
    '*' marks the mutant's named family."""
    width = max(len(t.rsplit(".", 1)[-1]) for t in runs)
    head = f"{'mutant':<{width}}  " + " ".join(f"{f[:11]:>11}" for f in families)
    lines = [head, "-" * len(head)]
    killed = 0
    for target, run in runs.items():
        short = target.rsplit(".", 1)[-1]
        per_family = {f: sum(family_of(p) == f for p in run.failed()) for f in families}
        marks = [
            (str(per_family[f]) if per_family[f] else ".")
            + ("*" if named.get(target) == f else " ")
            for f in families
        ]
        cells = [f"{m:>11}" for m in marks]
        killed += any(per_family.values())
        lines.append(f"{short:<{width}}  " + " ".join(cells))
    lines.append(f"{killed}/{len(runs)} mutants killed; * = the mutant's named family")
    return "\n".join(lines)


def main() -> int:
    """Print the full kill matrix (every property against every mutant)."""
    runs = run_all([REFERENCE, *MUTANTS])
    print(
        format_matrix(
            {m: runs[m] for m in MUTANTS}, list(FAMILIES), {m: named_family(m) for m in MUTANTS}
        )
    )
    ref = runs[REFERENCE]
    return 1 if ref.failed() or not ref.outcomes else 0


if __name__ == "__main__":
    sys.exit(main())
