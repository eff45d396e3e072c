"""A fork of the warm runner sees what a fresh interpreter sees: the same outcomes,
messages and recorded failing examples (the negative controls rely on it)."""

from __future__ import annotations

from mrv2_conformance.tests import kill_matrix as km
from mrv2_conformance.tests.warm import WarmRunner


def test_a_fork_gives_the_same_run_as_a_fresh_interpreter():
    mutant = "mrv2_conformance.tests.mutants.m_sort_unstable"
    selection = [p for p in km.properties() if km.family_of(p) == "ordering"]
    env = km._runner_env("kill")
    warm = WarmRunner(env)
    try:
        forked = km.run_conformance(mutant, selection=selection, runner=warm)
        again = km.run_conformance(mutant, selection=selection, runner=warm)
    finally:
        warm.close()
    fresh = km.run_conformance(mutant, selection=selection, runner=WarmRunner(env, fork=False))
    assert fresh.failed(), f"the mutant should fail some ordering property:\n{fresh.stderr}"
    for run in (forked, again):
        assert run.outcomes == fresh.outcomes, run.stderr
        assert run.messages == fresh.messages
        assert run.reproductions == fresh.reproductions
        assert run.returncode == fresh.returncode
