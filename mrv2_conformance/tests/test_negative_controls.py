"""Negative controls: every mutant in tests/mutants is killed by a property of its
named family, every property kills some mutant, the reference passes them all, and
every property's failure reproduces from the command it prints.

The conformance suite runs per target under the `kill` profile (the `ci` example
budget, derandomized, without shrinking), on the lazy schedule of
``tests/kill_matrix.py``: one test per mutant, so progress shows per mutant. Runs are
cached in the shared base temp directory, so xdist workers split the mutants between
them and the tests that need every run reuse them.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from mrv2_conformance.contract import FAMILIES
from mrv2_conformance.tests import kill_matrix as km
from mrv2_conformance.tests.conftest import KILL_MATRIX
from mrv2_conformance.tests.helpers import pasted

BROKEN_MUTANT_ERRORS = (
    "RecursionError",
    "NameError",
    "SyntaxError",
    "ImportError",
    "ModuleNotFoundError",
    "UnboundLocalError",
)

pytestmark = pytest.mark.negative_controls


@pytest.fixture(scope="session")
def matrix(tmp_path_factory) -> Iterator[km.Matrix]:
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # xdist workers share the parent
        shared = shared.parent
    matrix = km.Matrix(Path(shared) / "kill-matrix")
    yield matrix
    matrix.close()


def test_there_are_enough_mutants_covering_every_family():
    families = {km.named_family(m) for m in km.MUTANTS}
    assert len(km.MUTANTS) >= 20
    assert families == set(FAMILIES), f"families without a mutant: {set(FAMILIES) - families}"
    for m in km.MUTANTS:
        doc = importlib.import_module(m).__doc__
        assert doc and doc.strip(), f"{m} has no docstring saying how it is wrong"


def test_every_property_is_known_to_the_schedule(matrix):
    ref = matrix.run(km.REFERENCE)
    assert ref.outcomes, f"the conformance run of the reference produced no results:\n{ref.stderr}"
    assert set(ref.outcomes) == set(matrix.properties), (
        "kill_matrix.properties() and the reference's run disagree on the properties: "
        f"{set(ref.outcomes) ^ set(matrix.properties)}"
    )


def test_reference_passes_every_property(matrix):
    ref = matrix.run(km.REFERENCE)
    assert ref.outcomes, f"the conformance run of the reference produced no results:\n{ref.stderr}"
    assert not ref.failed(), f"the reference fails {ref.failed()}: {ref.messages}"


@pytest.mark.parametrize("mutant", km.MUTANTS, ids=lambda m: m.rsplit(".", 1)[-1])
def test_mutant_is_killed_by_its_family(matrix, mutant):
    run, family = matrix.run(mutant), km.named_family(mutant)
    assert run.outcomes, f"the conformance run of {mutant} produced no results:\n{run.stderr}"
    by_family = [p for p in run.failed() if km.family_of(p) == family]
    assert by_family, (
        f"{mutant} ({importlib.import_module(mutant).__doc__.strip()}) survives every "
        f"`{family}` property; it is killed only by {run.failed() or 'nothing'}"
    )
    # A kill by the mutant's own crash proves nothing about the property.
    crashes = {
        p: run.messages.get(p, "")
        for p in by_family
        if run.messages.get(p, "").startswith(BROKEN_MUTANT_ERRORS)
    }
    assert len(crashes) < len(by_family), f"{mutant} is broken, not killed: {crashes}"


def _device_class(mutant: str) -> bool:
    """Read from the source, not imported: importing a mutant at collection would run
    the one that patches the reference in every worker (m_patches_the_reference)."""
    path = Path(km.ROOT, "tests", "mutants", mutant.rsplit(".", 1)[-1] + ".py")
    return "\nDEVICE_CLASS = True\n" in path.read_text()


DEVICE_CLASS = [m for m in km.MUTANTS if _device_class(m)]


def test_there_are_enough_device_class_mutants():
    assert len(DEVICE_CLASS) >= 8, DEVICE_CLASS


@pytest.mark.parametrize("mutant", DEVICE_CLASS, ids=lambda m: m.rsplit(".", 1)[-1])
def test_device_class_mutant_survives_a_host_only_run(matrix, mutant):
    """Only a second memory shows it: a host-only run (--device none) of its family
    passes, while the default run (on the simulated device) kills it."""
    family = km.named_family(mutant)
    run = km.run_conformance(
        mutant,
        selection=[f"conformance/test_{family}.py"],
        runner=matrix.runner,
        extra=("--device", "none"),
    )
    assert run.outcomes and not run.failed(), (
        f"{mutant} is killed without a device: {run.failed()} {run.messages}\n{run.stderr}"
    )


def test_every_property_kills_some_mutant(matrix, record_property):
    runs = matrix.all()
    # Shown at the end of the run (tests/conftest.py), from the report itself.
    record_property(
        KILL_MATRIX,
        km.format_matrix(
            {m: runs[m] for m in km.MUTANTS},
            list(FAMILIES),
            {m: km.named_family(m) for m in km.MUTANTS},
        )
        + "\n",
    )
    vacuous = [
        p
        for p in matrix.properties
        if not any(runs[m].outcomes.get(p) == "failed" for m in km.MUTANTS)
    ]
    assert not vacuous, f"properties that no mutant fails (vacuous?): {vacuous}"


@pytest.mark.parametrize("prop", km.properties(), ids=lambda p: p.rsplit("::", 1)[-1])
def test_property_failure_reproduces_from_its_command(matrix, prop, tmp_path):
    """The property's failure (on the first mutant seen to fail it) prints a command
    that, pasted into a shell elsewhere, fails again with the same message."""
    killer = matrix.killer_of(prop)
    assert killer is not None, f"{prop} fails on no mutant with a reproduction command"
    commands, message = killer.reproductions[prop]
    command = commands.splitlines()[0]
    proc = pasted(command, tmp_path)
    lines = [line.strip() for line in message.splitlines() if line.strip().startswith("- ")] or [
        message.splitlines()[0].strip()
    ]
    shown = [line for line in lines if line in proc.stdout]
    # One blob replays one failing example: all of a single failure's lines, or at
    # least one of several distinct failures.
    assert (
        proc.returncode == pytest.ExitCode.TESTS_FAILED
        and shown
        and (len(commands.splitlines()) > 1 or len(shown) == len(lines))
    ), (
        f"{prop} (failing on {killer.target}): `{command}` exited {proc.returncode} and "
        f"showed {len(shown)}/{len(lines)} of the failure lines {lines}:\n"
        f"{proc.stdout[-1500:]}{proc.stderr[-500:]}"
    )
