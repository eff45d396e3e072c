"""Reproducibility: a seed reproduces a run, a failure can be saved and replayed without
searching again, and accelerators are pinned per xdist worker."""

from __future__ import annotations

import re

import pytest
from mrv2_conformance.tests.helpers import run_suite

from mrv2_conformance.plugin.devices import pinned_device

# A property without explicit examples, so that its failure comes from the search (an
# explicit example fails first, is never saved, and needs no seed to come back).
MUTANT = "mrv2_conformance.tests.mutants.m_slots_fifo"
ONE_PROPERTY = ("conformance/test_slot_table.py", "-k", "lifo_free_list")


def falsifying_example(output: str) -> str:
    # "Failing test case:" in current Hypothesis, "Falsifying example:" in older ones.
    match = re.search(r"(?:Failing test case|Falsifying example):.*?\)\n", output, re.S)
    assert match, output[-2000:]
    # Hypothesis annotates values it generated freshly; the example itself is the same.
    return match.group(0).replace("  # or any other generated value", "")


def test_a_seed_reproduces_the_falsifying_example():
    runs = [
        run_suite(
            *ONE_PROPERTY,
            "--target",
            MUTANT,
            "--hypothesis-seed=20261202",
            env={"HYPOTHESIS_PROFILE": "dev"},
        )
        for _ in range(2)
    ]
    assert all(r.returncode == pytest.ExitCode.TESTS_FAILED for r in runs)
    assert falsifying_example(runs[0].stdout) == falsifying_example(runs[1].stdout)


def test_a_saved_failure_replays_without_a_search(tmp_path):
    db = tmp_path / "failures"
    saved = run_suite(*ONE_PROPERTY, "--target", MUTANT, f"--save-failures={db}")
    assert saved.returncode == pytest.ExitCode.TESTS_FAILED
    assert any(db.rglob("*")), "nothing was saved"
    replay = run_suite(
        *ONE_PROPERTY, "--target", MUTANT, f"--replay={db}", "--hypothesis-show-statistics"
    )
    assert replay.returncode == pytest.ExitCode.TESTS_FAILED
    assert falsifying_example(replay.stdout) == falsifying_example(saved.stdout)
    assert "generate phase" not in replay.stdout, "the replay searched again"
    # The same examples against the reference: it conforms.
    fixed = run_suite(*ONE_PROPERTY, f"--replay={db}")
    assert fixed.returncode == pytest.ExitCode.OK, fixed.stdout[-2000:]


def test_replay_of_a_missing_database_is_a_usage_error(tmp_path):
    proc = run_suite(*ONE_PROPERTY, f"--replay={tmp_path / 'nope'}")
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR
    assert "no such example database" in proc.stderr


def test_each_xdist_worker_gets_its_own_accelerator():
    devices = ["cuda:0", "cuda:1", "cuda:2"]
    assert [pinned_device(devices, f"gw{i}") for i in range(5)] == [
        "cuda:0",
        "cuda:1",
        "cuda:2",
        "cuda:0",
        "cuda:1",
    ]
