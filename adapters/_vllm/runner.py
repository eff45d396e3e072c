"""Stand-ins for what upstream's runner methods read, when they are called unbound.

* ``stand_in``: a ``GPUModelRunner`` with exactly the attributes those methods read
  (found by reading them, per release) and the runner class's own methods, set to
  what a plain single-GPU runner has: no
  pipeline/decode-context parallelism, no adaptive verification, no fast prefill, no
  R-SWA, one sampled token per step. An attribute it lacks raises an AttributeError
  naming it and the release, so a release that reads something new says what.
* ``scheduler_output``: upstream's own ``SchedulerOutput`` (its ``make_empty()``, or
  its dataclass defaults), with the step's tokens filled in: a field upstream adds
  arrives with upstream's default, never silently missing.
"""

from __future__ import annotations

import dataclasses
import inspect
from types import FunctionType, SimpleNamespace
from typing import Any

from mrv2_conformance.adapters._vllm.upstream import (
    API,
    VERSION,
    SchedulerOutput,
    UnknownApi,
    model_runner,
)

# Hidden attributes the methods read that have nothing to do with the contract.
_PLAIN_RUNNER = dict(
    use_pp=False, use_dcp=False, dcp_size=1, dcp_rank=0, cp_interleave=1,
    pcp_manager=None, adaptive_verification=None, fast_prefill=None,
    kv_block_zeroer=None, kv_caches=[], replayssm_block_copy_tensors=[], block_tables=None,
    model_config=SimpleNamespace(rswa_window=None),
    model_state=SimpleNamespace(num_new_sampled_tokens_per_step=1),
)


class StandInRunner(SimpleNamespace):
    def __getattr__(self, name: str) -> Any:  # only for attributes it does not have
        # The runner class's own methods (and properties), bound to the stand-in: a
        # method may call a helper of its class (the plugin's _update_seq_lens_cpu).
        member = inspect.getattr_static(API.classes.runner, name, None)
        if isinstance(member, (FunctionType, property)):
            return member.__get__(self)
        raise AttributeError(
            f"vLLM {VERSION}: {API.classes.runner.__name__} reads self.{name}, which the "
            f"adapter's runner stand-in does not have (adapters/_vllm/runner.py)")


def stand_in(req_states: Any, decode_query_len: int, input_buffers: Any = None) -> Any:
    runner = StandInRunner(**_PLAIN_RUNNER, **dict(API.classes.runner_attrs),
                           req_states=req_states, decode_query_len=decode_query_len)
    if input_buffers is not None:
        runner.input_buffers = input_buffers
        runner.device = input_buffers.device
        runner.max_num_reqs = input_buffers.max_num_reqs
    return runner


def _empty_step() -> Any:
    if hasattr(SchedulerOutput, "make_empty"):
        return SchedulerOutput.make_empty()
    try:
        return SchedulerOutput()
    except TypeError as exc:
        raise UnknownApi(f"vLLM {VERSION}: cannot build an empty SchedulerOutput: {exc}") from None


def scheduler_output(num_scheduled_tokens: dict[str, int],
                     scheduled_spec_decode_tokens: dict[str, list[int]],
                     total_num_scheduled_tokens: int) -> Any:
    """A step with no cached-request updates, no new blocks, no structured output."""
    return dataclasses.replace(
        _empty_step(), num_scheduled_tokens=num_scheduled_tokens,
        scheduled_spec_decode_tokens=scheduled_spec_decode_tokens,
        total_num_scheduled_tokens=total_num_scheduled_tokens)


def update_requests(req_states: Any) -> None:
    """Upstream's per-step bookkeeping (it clamps ``num_computed_prefill_tokens`` to
    ``prefill_len``), for a step that only admitted requests."""
    API.update_requests(stand_in(req_states, 1), scheduler_output=scheduler_output({}, {}, 0))


def eager_descriptor(num_tokens: int) -> Any:
    """The batch descriptor of the plain path: eager, no token or request padding."""
    from vllm.config import CUDAGraphMode
    return model_runner.BatchExecutionDescriptor(cg_mode=CUDAGraphMode.NONE,
                                                 num_tokens=num_tokens, num_reqs=None)


__all__ = ["StandInRunner", "eager_descriptor", "scheduler_output", "stand_in",
           "update_requests"]
