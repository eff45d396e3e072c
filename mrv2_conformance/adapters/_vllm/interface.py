"""The suite's interface (``contract.INTERFACE``) on the installed vLLM.

Each function calls upstream's own code; the only additions are the environment and
host-memory stand-ins of ``environment`` and the stand-in runner of ``runner``.
API drift between releases is absorbed here (``upstream.API``); behaviour is never
filled in: a release that lacks a field or a check fails the property that needs it.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from mrv2_conformance.adapters._vllm import runner
from mrv2_conformance.adapters._vllm.environment import host_memory_stand_ins
from mrv2_conformance.adapters._vllm.slot_table import MAX_MODEL_LEN, SlotTable, buffers_made_on
from mrv2_conformance.adapters._vllm.upstream import (
    API,
    buffer_utils,
    input_batch,
    need,
)

__all__ = [
    "DISCLOSURES",
    "InputBuffers",
    "SlotTable",
    "async_copy_to_gpu",
    "buffers_class",
    "gather_batch_req_state",
    "make_dummy",
    "prepare_inputs",
    "req_states_of",
    "sort_batch_req_ids",
    "update_states",
]


# How every target on this core drives a step, beyond upstream's own code (the header
# and the report show each line).
DISCLOSURES = [
    "runner state outside the contract kept by a no-op stand-in (adapters/_vllm/runner.py "
    "Bookkeeping): model_state, block_tables, lora_state, draft_tokens_handler; no "
    "sampler, speculator, pooling or encoder",
    "between steps, each running request's device num_computed_tokens is set to the "
    "step's count (what the runner's post-sampling update leaves there; the suite "
    "samples nothing)",
    f"prompts up to MAX_MODEL_LEN={MAX_MODEL_LEN} tokens (the size of RequestState's token store)",
]


@functools.cache  # one class per base: the 0.27.1 gather builds buffers per call
def buffers_class(base: type) -> type:
    """``base`` (upstream's buffers, or a plugin's), the device argument normalised to
    ``torch.device`` as the runner passes it."""

    class InputBuffers(base):
        def __init__(
            self, max_num_reqs: int, max_num_tokens: int, device: torch.device | str
        ) -> None:
            super().__init__(max_num_reqs, max_num_tokens, torch.device(device))
            buffers_made_on(torch.device(device))

    InputBuffers.__qualname__ = f"InputBuffers({base.__name__})"
    return InputBuffers


InputBuffers = buffers_class(input_batch.InputBuffers)


def sort_batch_req_ids(
    num_tokens_per_req: Mapping[str, int],
    draft_tokens: Mapping[str, Sequence[int]],
    decode_query_len: int,
) -> list[str]:
    # Before #51210 the sort had no drafts parameter: drafts did not affect the order.
    return need(API.sort, "sort_batch_req_ids (it sorts inline in prepare_inputs)")(
        num_tokens_per_req=num_tokens_per_req,
        draft_tokens=draft_tokens,
        decode_query_len=decode_query_len,
    )


def _scheduler_output(batch: Any) -> Any:
    # The whole step, its request updates included: the runner hands prepare_inputs
    # the same SchedulerOutput as its update path (a port reads it there too).
    return runner.scheduler_output_of(batch)


def update_states(step: Any, slot_table: SlotTable) -> None:
    """CONTRACT F4: upstream's ``finish_requests``, ``add_requests`` and
    ``update_requests`` on the step (``SlotTable.update_states``)."""
    slot_table.update_states(step)


def gather_batch_req_state(batch: Any, slot_table: SlotTable, decode_query_len: int) -> Any:
    """0.28.0+: ``GPUModelRunner.gather_batch_req_state``. Before, the gather was inline
    in ``prepare_inputs``: it runs there (into scratch buffers) and its batch, which
    carries the gathered fields, is returned."""
    if API.gather is None:
        buffers = buffers_class(API.classes.input_buffers)(
            slot_table.max_num_reqs,
            max(1, int(batch.total_num_scheduled_tokens)),
            slot_table.device,
        )
        return prepare_inputs(batch, slot_table, buffers, decode_query_len)
    stand_in = runner.stand_in(slot_table.states_on(slot_table.device), decode_query_len)
    with host_memory_stand_ins(buffer_utils):
        state, _ = API.gather(stand_in, scheduler_output=_scheduler_output(batch), dummy_run=False)
    return state


def prepare_inputs(
    batch: Any, slot_table: SlotTable, input_buffers: Any, decode_query_len: int
) -> Any:
    """``GPUModelRunner.prepare_inputs`` (after ``gather_batch_req_state`` where the
    release has it), eager mode, no request padding, no LoRA."""
    req_states = slot_table.states_on(torch.device(input_buffers.device))
    stand_in = runner.stand_in(req_states, decode_query_len, input_buffers)
    step = _scheduler_output(batch)
    desc = runner.eager_descriptor(int(batch.total_num_scheduled_tokens))
    with host_memory_stand_ins(buffer_utils):
        state = None
        if API.prepare.takes("batch_req_state"):
            state, _ = need(API.gather, "gather_batch_req_state")(
                stand_in, scheduler_output=step, dummy_run=False
            )
        out = API.prepare(
            stand_in,
            scheduler_output=step,
            batch_req_state=state,
            batch_desc=desc,
            num_active_loras=0,
        )
    # 0.27.1's PCPManager reads the runner's slot table: remember which it was (beside
    # the batch, not on it: a batch holds only what upstream put there).
    remember_req_states(out, req_states)
    return out


_req_states_of: dict[int, Any] = {}


def remember_req_states(batch: Any, req_states: Any) -> None:
    _req_states_of[id(batch)] = req_states
    weakref.finalize(batch, _req_states_of.pop, id(batch), None)


def req_states_of(batch: Any) -> Any:
    """The upstream slot table a batch was built from (None for a dummy batch)."""
    return _req_states_of.get(id(batch))


def make_dummy(
    num_reqs: int, num_tokens: int, input_buffers: Any, max_query_len: int | None = None
) -> Any:
    """``InputBatch.make_dummy``. Releases before 0.28.0 take no ``max_query_len``:
    there it is not passed, so it is not checked (the property that expects its
    rejection fails there)."""
    extra = {} if max_query_len is None else {"max_query_len": max_query_len}
    with host_memory_stand_ins(buffer_utils):
        return API.make_dummy(
            num_reqs=num_reqs, num_tokens=num_tokens, input_buffers=input_buffers, **extra
        )


def async_copy_to_gpu(
    x: np.ndarray | torch.Tensor,
    out: torch.Tensor | None = None,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """0.30.0+: ``vllm.utils.torch_utils.async_tensor_h2d`` (dtype kept, or ``out``'s);
    before: ``buffer_utils.async_copy_to_gpu``."""
    with host_memory_stand_ins(buffer_utils):
        return API.h2d(x=x, data=x, out=out, device=device)
