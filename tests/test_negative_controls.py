"""Negative controls: every mutant in tests/mutants is killed by a property of its
named family, every property kills some mutant, the reference passes them all, and
every property's failure reproduces from the command it prints.

The conformance suite runs once per target, in subprocesses, under the `kill`
profile (the `ci` example budget, derandomized, without shrinking). Under xdist the
first worker computes the matrix and the others read it (file lock in the shared
base temp directory).
"""

from __future__ import annotations

import fcntl
import importlib
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from mrv2_conformance.conformance.families import FAMILIES
from mrv2_conformance.tests import kill_matrix as km
from mrv2_conformance.tests.helpers import pasted
from mrv2_conformance.tests.mutants import mutant_names

MUTANTS = [f"mrv2_conformance.tests.mutants.{m}" for m in mutant_names()]
REFERENCE = "mrv2_conformance.impl"
MATRIX_REPORT = km.ROOT / "reports" / "kill-matrix.txt"
BROKEN_MUTANT_ERRORS = ("RecursionError", "NameError", "SyntaxError", "ImportError",
                        "ModuleNotFoundError", "UnboundLocalError")


def named_family(mutant: str) -> str:
    return importlib.import_module(mutant).FAMILY


pytestmark = pytest.mark.negative_controls


@pytest.fixture(scope="session")
def runs(tmp_path_factory) -> dict[str, km.Run]:
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # xdist workers share the parent
        shared = shared.parent
    cache = Path(shared) / "kill-matrix.json"
    with open(Path(shared) / "kill-matrix.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if cache.exists():
            return km.from_json(cache.read_text())
        result = km.run_all([REFERENCE, *MUTANTS])
        cache.write_text(km.to_json(result))
        MATRIX_REPORT.parent.mkdir(exist_ok=True)
        MATRIX_REPORT.write_text(km.format_matrix(
            {m: result[m] for m in MUTANTS}, list(FAMILIES),
            {m: named_family(m) for m in MUTANTS}) + "\n")
        return result


def test_there_are_enough_mutants_covering_every_family():
    families = {named_family(m) for m in MUTANTS}
    assert len(MUTANTS) >= 20
    assert families == set(FAMILIES), f"families without a mutant: {set(FAMILIES) - families}"
    for m in MUTANTS:
        doc = importlib.import_module(m).__doc__
        assert doc and doc.strip(), f"{m} has no docstring saying how it is wrong"


def test_reference_passes_every_property(runs):
    ref = runs[REFERENCE]
    assert ref.outcomes, f"the conformance run of the reference produced no results:\n{ref.stderr}"
    assert not ref.failed(), f"the reference fails {ref.failed()}: {ref.messages}"


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.rsplit(".", 1)[-1])
def test_mutant_is_killed_by_its_family(runs, mutant):
    run, family = runs[mutant], named_family(mutant)
    assert run.outcomes, f"the conformance run of {mutant} produced no results:\n{run.stderr}"
    by_family = [p for p in run.failed() if km.family_of(p) == family]
    assert by_family, (
        f"{mutant} ({importlib.import_module(mutant).__doc__.strip()}) survives every "
        f"`{family}` property; it is killed only by {run.failed() or 'nothing'}")
    # A kill by the mutant's own crash proves nothing about the property.
    crashes = {p: run.messages.get(p, "") for p in by_family
               if run.messages.get(p, "").startswith(BROKEN_MUTANT_ERRORS)}
    assert len(crashes) < len(by_family), f"{mutant} is broken, not killed: {crashes}"


def test_every_property_kills_some_mutant(runs):
    # The differential family skips on the reference (nothing to compare it with).
    props = [p for p, o in runs[REFERENCE].outcomes.items()
             if o == "passed" or km.family_of(p) == "differential"]
    assert props
    vacuous = [p for p in props if not any(runs[m].outcomes.get(p) == "failed" for m in MUTANTS)]
    assert not vacuous, f"properties that no mutant fails (vacuous?): {vacuous}"


def test_every_property_failure_reproduces_from_its_command(runs, tmp_path):
    """Each property's failure (on the first mutant it kills) prints a command that,
    pasted into a shell elsewhere, fails again with the same message."""
    props = sorted(p for p, o in runs[REFERENCE].outcomes.items()
                   if o == "passed" or km.family_of(p) == "differential")
    chosen = {p: next((runs[m].reproductions[p] for m in MUTANTS
                       if p in runs[m].reproductions), None) for p in props}
    assert not [p for p, r in chosen.items() if r is None], \
        f"failed properties without a reproduction command: {chosen}"

    def check(item: tuple[str, list[str]]) -> str | None:
        prop, (commands, message) = item
        command = commands.splitlines()[0]
        proc = pasted(command, tmp_path)
        lines = [line.strip() for line in message.splitlines() if line.strip().startswith("- ")] \
            or [message.splitlines()[0].strip()]
        shown = [line for line in lines if line in proc.stdout]
        # One blob replays one failing example: all of a single failure's lines, or
        # at least one of several distinct failures.
        if proc.returncode != pytest.ExitCode.TESTS_FAILED or not shown or (
                len(commands.splitlines()) == 1 and len(shown) != len(lines)):
            return (f"{prop}: `{command}` exited {proc.returncode} and showed "
                    f"{len(shown)}/{len(lines)} of the failure lines {lines}:\n"
                    f"{proc.stdout[-1500:]}{proc.stderr[-500:]}")
        return None

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        bad = [r for r in pool.map(check, chosen.items()) if r]
    assert not bad, "\n\n".join(bad)
