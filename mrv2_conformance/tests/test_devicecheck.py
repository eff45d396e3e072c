"""The prepared GPU check (mrv2_conformance/devicecheck.py, ``./dev gpu-check``): a
device that cannot run is named and fails the check; a device that runs prints its
family table; the side-by-side table names every property whose outcome differs."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest
import torch
from mrv2_conformance import devicecheck
from mrv2_conformance.devicecheck import Side, side_by_side
from mrv2_conformance.tests.helpers import ROOT


@pytest.mark.skipif(torch.cuda.is_available(), reason="a cuda device is visible")
def test_without_cuda_the_simulated_side_runs_and_the_check_fails():
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "mrv2_conformance.devicecheck", "--budget", "240"),
            *("-p", "no:xdist", "-k", "test_make_dummy_device_twins"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert f"not run: no cuda device is visible to torch {torch.__version__}" in out
    assert "== simdev ==" in out and "by contract family" in out
    assert "device_host                    1/0/0" in out, out
    assert out.rstrip().endswith("devicecheck: cuda not run; simdev passed"), out


def _side(device: str, outcomes: dict[str, str]) -> Side:
    side = Side(device, returncode=0, seconds=1.0, outcomes=outcomes)
    for prop, outcome in outcomes.items():
        side.families.setdefault(prop.split("::")[0], Counter())[outcome] += 1
    return side


def test_the_side_by_side_table_names_each_differing_property():
    cuda = _side("cuda", {"device_host::a": "passed", "pcp::b": "failed"})
    sim = _side("simdev", {"device_host::a": "passed", "pcp::b": "passed"})
    table = side_by_side([cuda, sim, Side("xpu", not_run="no xpu device")])
    assert "xpu" not in table
    differ = "outcomes that differ between the devices:\n  pcp::b: cuda failed, simdev passed"
    assert differ in table
    assert "device_host::a" not in table.split("differ")[1]
    same = side_by_side([_side("cuda", {"p::a": "passed"}), _side("simdev", {"p::a": "passed"})])
    assert same.endswith("every device variant has the same outcome on each device")


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--devices", " , "], "--devices names no device"), (["--budget", "0"], "--budget must")],
)
def test_bad_arguments_are_one_usage_error(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        devicecheck.main(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err
