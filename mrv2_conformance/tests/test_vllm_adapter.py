"""The vLLM target without vLLM: it skips with its reason and changes nothing; its
host-memory stand-ins restore what they replace. (With vLLM installed, tox -e
vllm-* runs the conformance suite against it.)"""

from __future__ import annotations

import importlib.util
import os
from types import SimpleNamespace

import pytest
import torch
from mrv2_conformance.adapters._vllm.environment import host_memory_stand_ins
from mrv2_conformance.plugin.target import load_target
from mrv2_conformance.tests.helpers import run_suite

needs_no_vllm = pytest.mark.skipif(
    importlib.util.find_spec("vllm") is not None,
    reason="vLLM is installed here: tox -e vllm-* covers it",
)


@needs_no_vllm
def test_without_vllm_the_target_is_unavailable_and_the_process_untouched():
    before = dict(os.environ)
    target = load_target("mrv2_conformance.adapters.vllm")
    assert target.unavailable and "vLLM is not installed" in target.unavailable
    assert "tox -m vllm" in target.unavailable
    assert dict(os.environ) == before  # no VLLM_/TRITON_ settings leaked


@needs_no_vllm
def test_without_vllm_every_property_skips_with_the_reason():
    proc = run_suite(
        "conformance/test_ordering.py",
        "conformance/test_keyerror.py",
        "--target",
        "mrv2_conformance.adapters.vllm",
        "-rs",
    )
    out = proc.stdout + proc.stderr
    # Nothing was tested: not a pass.
    assert proc.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, out
    assert "nothing was tested: every selected property skipped" in out
    adapter = "mrv2_conformance.adapters.vllm"
    assert f"mrv2-conformance target: {adapter} (unavailable: vLLM is not installed" in out
    assert "passed" not in out.splitlines()[-1] and "skipped" in out.splitlines()[-1], out
    assert "SKIPPED" in out and f"target {adapter} is unavailable: vLLM is not installed" in out


@pytest.mark.skipif(torch.cuda.is_available(), reason="with an accelerator nothing is replaced")
def test_host_memory_stand_ins_are_scoped_and_restored():
    view = object()
    buffer_utils = SimpleNamespace(get_accelerator_view_from_cpu_tensor=view)
    saved = torch.zeros, torch.Tensor.pin_memory
    # (No pinned allocator without an accelerator: tests/test_library_facts.py; this
    # process may have registered the simulated device, which pins.)
    with pytest.raises(ZeroDivisionError), host_memory_stand_ins(buffer_utils):
        t = torch.zeros(3, dtype=torch.int32, pin_memory=True)
        assert t.pin_memory() is t and t.dtype == torch.int32
        assert buffer_utils.get_accelerator_view_from_cpu_tensor(t) is t
        _ = 1 / 0  # restored on the way out of an error too
    assert (torch.zeros, torch.Tensor.pin_memory) == saved
    assert buffer_utils.get_accelerator_view_from_cpu_tensor is view
