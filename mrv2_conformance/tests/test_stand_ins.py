"""The Ascend toolkit stand-ins (adapters/_ascend/stand_ins.py): recorded at import,
fatal during a contract call, even when the code under test swallows the error."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util

import pytest
import torch
from mrv2_conformance.adapters._ascend import stand_ins
from mrv2_conformance.tests.helpers import run_suite


@pytest.fixture
def installed():
    stand_ins.install()
    yield stand_ins.LEDGER
    stand_ins.uninstall()


def test_stand_ins_import_record_and_type_annotate(installed):
    npu = importlib.import_module("torch_npu._C")
    event = torch.npu.Event
    assert (event | None) is not None  # usable in annotations, as the ports use it
    assert npu._NPUTaskGroupHandle is not None
    expected = [
        "import torch_npu",
        "import torch_npu._C",
        "torch.npu.Event",
        "torch_npu._C._NPUTaskGroupHandle",
    ]
    if importlib.util.find_spec("triton") is not None:  # the cann subtree lives under it
        ext = importlib.import_module("triton.language.extra.cann.extension")
        assert ext.insert_slice is not None
        expected += [
            "import triton.language.extra.cann.extension",
            "triton.language.extra.cann.extension.insert_slice",
        ]
    touched = list(installed.import_time)
    for access in expected:
        assert access in touched
    assert "torch.npu.Event" in stand_ins.disclosure()[1]


def test_a_touch_during_a_contract_call_raises_and_is_not_swallowed(installed):
    fmt = importlib.import_module("torch_npu").npu_format_cast  # bound at import
    with (
        pytest.raises(
            stand_ins.StandInTouched,
            match=r"^prepare_inputs\(\) touched the stand-in torch_npu\."
            r"npu_format_cast\(\.\.\.\): .* no contract result",
        ),
        stand_ins.guard("prepare_inputs()"),
    ):
        fmt(1)
    with (
        pytest.raises(stand_ins.StandInTouched, match=r"torch\.npu\.current_stream"),
        stand_ins.guard("make_dummy()"),
        contextlib.suppress(stand_ins.StandInTouched),
    ):  # swallowed by the code under test
        torch.npu.current_stream  # noqa: B018
    with stand_ins.guard("a call that touches nothing"):
        assert torch.zeros(1).sum() == 0


def test_uninstall_restores_the_process(installed):
    stand_ins.uninstall()
    assert not hasattr(torch, "npu") or not isinstance(torch.npu, stand_ins.StandInModule)
    assert importlib.util.find_spec("torch_npu") is None


def test_a_target_that_touches_a_stand_in_fails_the_run():
    target = "mrv2_conformance.tests.targets.touches_a_stand_in"
    proc = run_suite(
        "conformance/test_ordering.py", "-k", "prepare_inputs_values and cpu", "--target", target
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, out
    assert "prepare_inputs() touched the stand-in torch_npu.npu_format_cast(...)" in out, out
    # The header discloses the stand-ins and what was touched at import.
    assert "target discloses: stand-ins (no implementation" in out
    assert "touched at import (2): import torch_npu, torch_npu.npu_format_cast" in out
