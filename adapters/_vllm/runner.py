"""A stand-in for ``GPUModelRunner``: upstream's methods are called unbound on it.

It carries exactly the attributes those methods read (found by reading them, per
release), set to what a plain single-GPU runner has: no
pipeline/decode-context parallelism, no adaptive verification, no fast prefill, no
R-SWA, one sampled token per step. A scheduler step is a ``SimpleNamespace`` with
the fields of ``SchedulerOutput`` those methods read.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from mrv2_conformance.adapters._vllm.upstream import Runner, model_runner

# Hidden attributes the methods read that have nothing to do with the contract.
_PLAIN_RUNNER = dict(
    use_pp=False, use_dcp=False, dcp_size=1, dcp_rank=0, cp_interleave=1,
    pcp_manager=None, adaptive_verification=None, fast_prefill=None,
    kv_block_zeroer=None, kv_caches=[], replayssm_block_copy_tensors=[], block_tables=None,
    model_config=SimpleNamespace(rswa_window=None),
    model_state=SimpleNamespace(num_new_sampled_tokens_per_step=1),
)


def stand_in(req_states: Any, decode_query_len: int, input_buffers: Any = None) -> Any:
    runner = SimpleNamespace(**_PLAIN_RUNNER, req_states=req_states,
                             decode_query_len=decode_query_len)
    if input_buffers is not None:
        runner.input_buffers = input_buffers
        runner.device = input_buffers.device
        runner.max_num_reqs = input_buffers.max_num_reqs
    return runner


def scheduler_output(num_scheduled_tokens: dict[str, int],
                     scheduled_spec_decode_tokens: dict[str, list[int]],
                     total_num_scheduled_tokens: int) -> Any:
    """A step with no cached-request updates, no new blocks, no structured output."""
    return SimpleNamespace(
        num_scheduled_tokens=num_scheduled_tokens,
        scheduled_spec_decode_tokens=scheduled_spec_decode_tokens,
        total_num_scheduled_tokens=total_num_scheduled_tokens,
        scheduled_cached_reqs=SimpleNamespace(req_ids=[], num_computed_tokens=[],
                                              new_block_ids=[]),
        new_block_ids_to_zero=None,
        kv_cache_block_copies=None,
        has_structured_output_requests=False,
    )


def update_requests(req_states: Any) -> None:
    """Upstream's per-step bookkeeping (it clamps ``num_computed_prefill_tokens`` to
    ``prefill_len``), for a step that only admitted requests."""
    Runner.update_requests(stand_in(req_states, 1), scheduler_output({}, {}, 0))


def eager_descriptor(num_tokens: int) -> Any:
    """The batch descriptor of the plain path: eager, no token or request padding."""
    from vllm.config import CUDAGraphMode
    return model_runner.BatchExecutionDescriptor(cg_mode=CUDAGraphMode.NONE,
                                                 num_tokens=num_tokens, num_reqs=None)
