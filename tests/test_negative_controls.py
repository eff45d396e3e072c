"""Negative controls: every mutant in tests/mutants is killed by a property of its
named family, every property kills some mutant, and the reference passes them all.

The conformance suite runs once per target, in subprocesses, under the `kill`
profile (the `ci` example budget, derandomized, without shrinking). Under xdist the
first worker computes the matrix and the others read it (file lock in the shared
base temp directory).
"""

from __future__ import annotations

import fcntl
import importlib
import os
from pathlib import Path

import pytest

from conformance.families import FAMILIES
from tests import kill_matrix as km
from tests.mutants import mutant_names

MUTANTS = [f"tests.mutants.{m}" for m in mutant_names()]
REFERENCE = "impl"
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
