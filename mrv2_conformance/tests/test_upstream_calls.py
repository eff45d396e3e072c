"""How the vLLM adapter calls upstream across releases (adapters/_vllm/calls.py):
by parameter name; an unknown required parameter or a missing function is one error
naming it. Tested on stand-in functions, without vLLM."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from mrv2_conformance.adapters._vllm.calls import UnknownApi, call


class Runner:
    def prepare(self, scheduler_output, batch_desc, num_active_loras=0, *, padded=None):
        return (self, scheduler_output, batch_desc, num_active_loras, padded)


def loras_required(self, scheduler_output, num_active_loras):
    return num_active_loras


def test_arguments_go_by_name_and_only_where_the_release_takes_them():
    prepare = call(
        "vLLM 9",
        Runner,
        "prepare",
        ("scheduler_output", "batch_desc", "num_active_loras", "batch_req_state"),
        method=True,
    )
    assert prepare.passes == ("scheduler_output", "batch_desc", "num_active_loras")
    assert prepare.takes("num_active_loras") and not prepare.takes("batch_req_state")
    runner = Runner()
    # Offered in another order and with a value this release has no parameter for.
    got = prepare(
        runner, batch_req_state="unused", num_active_loras=2, batch_desc="d", scheduler_output="s"
    )
    assert got == (runner, "s", "d", 2, None)


def test_a_required_parameter_the_adapter_cannot_fill_is_named():
    owner = SimpleNamespace(
        __name__="vllm.v1.worker.gpu.model_runner", prepare_inputs=loras_required
    )
    with pytest.raises(
        UnknownApi,
        match=r"^vLLM 9: model_runner\.prepare_inputs takes "
        r"'num_active_loras', which the adapter does not know "
        r"how to fill \(it can pass scheduler_output\)$",
    ):
        call("vLLM 9", owner, "prepare_inputs", ("scheduler_output",), method=True)


def test_a_missing_function_is_named():
    with pytest.raises(UnknownApi, match=r"^vLLM 9 has no Runner\.gather \(the adapter calls it\)"):
        call("vLLM 9", SimpleNamespace(Runner=Runner), "Runner.gather", ())
