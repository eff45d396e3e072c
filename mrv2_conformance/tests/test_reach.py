"""The strategies reach every corner the CONTRACT names, at the budget CI runs (tests/reach.py)."""

from __future__ import annotations

import subprocess
import sys

from mrv2_conformance.tests.helpers import ROOT


def test_every_corner_is_reached_at_the_ci_budget():
    # Its own process: the shares depend on which modules are loaded (tests/reach.py).
    proc = subprocess.run([sys.executable, "-m", "mrv2_conformance.tests.reach"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "| `pcp_cases` | world size 7" in proc.stdout
