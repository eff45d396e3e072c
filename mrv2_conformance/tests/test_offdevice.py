"""CUDA-only calls on the simulated device (plugin/offdevice.py): the device variants
of a target that calls ``torch.cuda`` are "not applicable on this device", naming the
call's file and line, in the records, the family table and the last line; its cpu
variants still run; an operator with only a CUDA kernel is named as such."""

from __future__ import annotations

import json

import pytest
import torch
from mrv2_conformance import simdevice
from mrv2_conformance.plugin.offdevice import cuda_only_call
from mrv2_conformance.tests.helpers import run_suite

try:
    simdevice.load()
except simdevice.SimDeviceUnavailable as exc:  # pragma: no cover - a machine without g++
    pytest.skip(f"simulated device unavailable: {exc}", allow_module_level=True)

CUDA_STREAMS = "mrv2_conformance.tests.targets.cuda_streams"
CALL = "tests/targets/cuda_streams.py:14 calls torch.cuda.current_stream"  # from the run's cwd


@pytest.mark.skipif(torch.cuda.is_available(), reason="a cuda device is visible")
def test_a_cuda_only_call_makes_the_device_variants_not_applicable(tmp_path):
    report = tmp_path / "report.json"
    proc = run_suite(
        "conformance/test_device_host.py",  # every device variant reaches a copy
        *("--target", CUDA_STREAMS, f"--conformance-report={report}", "--device", "simdev"),
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    records = json.loads(report.read_text())["results"]
    on_device = [r for r in records if r["device"] != "cpu"]
    assert on_device and all(r["outcome"] == "skipped" for r in on_device), on_device
    calls = {r["off_device"] for r in on_device}
    assert len(calls) == 1 and calls.pop().endswith(f"{CALL}, which only CUDA has"), on_device
    assert all(r["outcome"] == "passed" for r in records if r["device"] == "cpu")
    assert "device_host" in out and "not applicable on this device" in out


def test_an_operator_with_only_a_cuda_kernel_is_named():
    lib = torch.library.Library("mrv2offdevice", "DEF")
    lib.define("only_cuda(Tensor x) -> Tensor")
    lib.impl("only_cuda", lambda x: x + 1, "CUDA")
    with pytest.raises(NotImplementedError) as info:
        torch.ops.mrv2offdevice.only_cuda(torch.zeros(2, device="simdev:1"))
    found = cuda_only_call(info.value)
    assert found is not None and found.endswith(
        "calls operator mrv2offdevice::only_cuda (no kernel for this device)"
    )
    assert "tests/test_offdevice.py:" in found


def test_an_ordinary_failure_is_not_a_cuda_only_call():
    try:
        raise ValueError("wrong length")
    except ValueError as exc:
        assert cuda_only_call(exc) is None
