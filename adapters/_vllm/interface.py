"""The suite's interface (``conformance.target.INTERFACE``) on the installed vLLM.

Each function calls upstream's own code; the only additions are the environment and
host-memory stand-ins of ``environment`` and the stand-in runner of ``runner``.
API drift between releases is absorbed here (``upstream.API``); behaviour is never
filled in: a release that lacks a field or a check fails the property that needs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from mrv2_conformance.adapters._vllm import runner, upstream
from mrv2_conformance.adapters._vllm.environment import host_memory_stand_ins
from mrv2_conformance.adapters._vllm.slot_table import SlotTable
from mrv2_conformance.adapters._vllm.upstream import (
    API,
    Runner,
    buffer_utils,
    input_batch,
    model_runner,
)

__all__ = ["InputBuffers", "SlotTable", "async_copy_to_gpu", "gather_batch_req_state",
           "make_dummy", "prepare_inputs", "sort_batch_req_ids"]


class InputBuffers(input_batch.InputBuffers):
    """Upstream's buffers; the device argument normalised to ``torch.device`` as the
    runner passes it."""

    def __init__(self, max_num_reqs: int, max_num_tokens: int,
                 device: torch.device | str) -> None:
        super().__init__(max_num_reqs, max_num_tokens, torch.device(device))


def sort_batch_req_ids(num_tokens_per_req: Mapping[str, int],
                       draft_tokens: Mapping[str, Sequence[int]],
                       decode_query_len: int) -> list[str]:
    if API.sort_takes_drafts:
        return model_runner.sort_batch_req_ids(num_tokens_per_req, draft_tokens,
                                               decode_query_len)
    # Before #51210 the sort had no drafts argument: drafts did not affect the order.
    return model_runner.sort_batch_req_ids(num_tokens_per_req, decode_query_len)


def _scheduler_output(batch: Any) -> Any:
    return runner.scheduler_output(batch.num_scheduled_tokens,
                                   batch.scheduled_spec_decode_tokens,
                                   batch.total_num_scheduled_tokens)


def gather_batch_req_state(batch: Any, slot_table: SlotTable, decode_query_len: int) -> Any:
    """0.28.0+: ``GPUModelRunner.gather_batch_req_state``. Before, the gather was inline
    in ``prepare_inputs``: it runs there (into scratch buffers) and its batch, which
    carries the gathered fields, is returned."""
    if not API.has_gather:
        buffers = InputBuffers(slot_table.max_num_reqs,
                               max(1, int(batch.total_num_scheduled_tokens)),
                               slot_table.device)
        return prepare_inputs(batch, slot_table, buffers, decode_query_len)
    stand_in = runner.stand_in(slot_table.req_states, decode_query_len)
    with host_memory_stand_ins(buffer_utils):
        state, _ = Runner.gather_batch_req_state(stand_in, _scheduler_output(batch), False)
    return state


def prepare_inputs(batch: Any, slot_table: SlotTable, input_buffers: InputBuffers,
                   decode_query_len: int) -> Any:
    """``GPUModelRunner.prepare_inputs`` (after ``gather_batch_req_state`` where the
    release has it), eager mode, no request padding, no LoRA."""
    req_states = slot_table.states_on(torch.device(input_buffers.device))
    stand_in = runner.stand_in(req_states, decode_query_len, input_buffers)
    step = _scheduler_output(batch)
    desc = runner.eager_descriptor(int(batch.total_num_scheduled_tokens))
    with host_memory_stand_ins(buffer_utils):
        if API.prepare_takes_batch_state:
            state, _ = Runner.gather_batch_req_state(stand_in, step, False)
            out = Runner.prepare_inputs(stand_in, step, state, desc, 0)
        else:
            out = Runner.prepare_inputs(stand_in, step, desc)
    # 0.27.1's PCPManager reads the runner's slot table: remember which it was.
    out.adapter_req_states = req_states
    return out


def make_dummy(num_reqs: int, num_tokens: int, input_buffers: InputBuffers,
               max_query_len: int | None = None) -> Any:
    """``InputBatch.make_dummy``. Releases before 0.28.0 take no ``max_query_len``:
    there it is not passed, so it is not checked (the property that expects its
    rejection fails there)."""
    kwargs = {}
    if max_query_len is not None and "max_query_len" in API.dummy_params:
        kwargs["max_query_len"] = max_query_len
    with host_memory_stand_ins(buffer_utils):
        return input_batch.InputBatch.make_dummy(num_reqs, num_tokens, input_buffers, **kwargs)


def async_copy_to_gpu(x: np.ndarray | torch.Tensor, out: torch.Tensor | None = None,
                      device: torch.device | str | None = None) -> torch.Tensor:
    """0.30.0+: ``vllm.utils.torch_utils.async_tensor_h2d`` (dtype kept, or ``out``'s);
    before: ``buffer_utils.async_copy_to_gpu``."""
    with host_memory_stand_ins(buffer_utils):
        if upstream.async_tensor_h2d is not None:
            return upstream.async_tensor_h2d(x, device=device, out=out)
        return buffer_utils.async_copy_to_gpu(x, out=out, device=device)
