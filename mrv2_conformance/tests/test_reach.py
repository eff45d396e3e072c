"""The strategies reach every corner the CONTRACT names, at the budget CI runs (tests/reach.py),
and docs/results/reach.md is what that command writes."""

from __future__ import annotations

import subprocess
import sys

import hypothesis

from mrv2_conformance import suite_root
from mrv2_conformance.tests.helpers import ROOT
from mrv2_conformance.tests.reach import generated

RESULTS = suite_root().parent / "docs" / "results" / "reach.md"


def test_every_corner_is_reached_at_the_ci_budget():
    # Its own process: the shares depend on which modules are loaded (tests/reach.py).
    proc = subprocess.run(
        [sys.executable, "-m", "mrv2_conformance.tests.reach"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "| `pcp_cases` | world size 7" in proc.stdout
    # The shares move with the Hypothesis release: the file is checked where it was
    # written with the Hypothesis that runs here (CI's pinned one).
    if RESULTS.exists() and f"(Hypothesis {hypothesis.__version__})" in RESULTS.read_text():
        assert RESULTS.read_text() == generated(proc.stdout.strip()), (
            "docs/results/reach.md is stale: rewrite it with "
            "python -m mrv2_conformance.tests.reach --write docs/results/reach.md"
        )
