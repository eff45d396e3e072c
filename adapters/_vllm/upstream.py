"""The installed vLLM's MRV2 modules, and how to call them.

Every difference between releases is read from the installed code: each upstream
function is called through a ``Call`` that binds arguments by *parameter name*, so a
release that adds a parameter with a default, drops one, or reorders them just works,
and one that adds a parameter the adapter cannot fill stops the run at import with one
line naming it (``UnknownApi``). No version table: a release the adapter has never
seen either runs or says what it does not know.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from typing import Any

from mrv2_conformance.adapters._vllm.calls import Call, UnknownApi, call
from mrv2_conformance.adapters._vllm.environment import configure_before_import

configure_before_import()

import vllm  # noqa: E402,F401
from vllm.v1.worker.gpu import buffer_utils, input_batch, model_runner, states  # noqa: E402

VERSION: str = metadata.version("vllm")


# Up to 0.29.0 MRV2 copies with buffer_utils.async_copy_to_gpu(x, out, device); from
# 0.30.0 with torch_utils.async_tensor_h2d(data, device, dtype, out) (which exists
# earlier too, without ``out``, but MRV2 does not use it there).
torch_utils: Any = None
if not hasattr(buffer_utils, "async_copy_to_gpu"):
    from vllm.utils import torch_utils

try:
    from vllm.v1.worker.gpu import pcp_manager
except ImportError:
    pcp_manager = None

try:  # upstream's own scheduler step, so a field added upstream is never missing
    from vllm.v1.core.sched.output import SchedulerOutput
except ImportError as exc:
    raise UnknownApi(f"vLLM {VERSION} has no vllm.v1.core.sched.output.SchedulerOutput "
                     f"({exc})") from None

Runner: type = model_runner.GPUModelRunner


@dataclass(frozen=True)
class Api:
    """How this release's MRV2 functions are called (each found by signature)."""

    sort: Call
    gather: Call | None  # GPUModelRunner.gather_batch_req_state (0.28.0+); before, inline
    prepare: Call
    update_requests: Call
    make_dummy: Call
    request_state: Call
    add_request: Call
    h2d: Call
    pcp_init: Call | None
    pcp_partition: Call | None
    pcp_layout: Call | None


def detect() -> Api:
    def find(owner: Any, path: str, can_pass: tuple[str, ...], method: bool = False) -> Call:
        return call(f"vLLM {VERSION}", owner, path, can_pass, method)

    has_gather = hasattr(Runner, "gather_batch_req_state")
    has_pcp = pcp_manager is not None
    return Api(
        sort=find(model_runner, "sort_batch_req_ids",
                  ("num_tokens_per_req", "draft_tokens", "decode_query_len")),
        gather=find(Runner, "gather_batch_req_state", ("scheduler_output", "dummy_run"),
                    method=True) if has_gather else None,
        prepare=find(Runner, "prepare_inputs",
                     ("scheduler_output", "batch_req_state", "batch_desc", "num_active_loras"),
                     method=True),
        update_requests=find(Runner, "update_requests", ("scheduler_output",), method=True),
        make_dummy=find(input_batch, "InputBatch.make_dummy",
                        ("num_reqs", "num_tokens", "input_buffers", "max_query_len")),
        request_state=find(states, "RequestState", (
            "max_num_reqs", "max_model_len", "max_num_batched_tokens", "num_speculative_steps",
            "vocab_size", "device")),
        add_request=find(states, "RequestState.add_request", (
            "req_id", "prompt_len", "all_token_ids", "num_computed_tokens", "max_tokens"),
            method=True),
        h2d=find(buffer_utils, "async_copy_to_gpu", ("x", "out", "device"))
        if torch_utils is None
        else find(torch_utils, "async_tensor_h2d", ("data", "device", "out")),
        pcp_init=find(pcp_manager, "PCPManager", (
            "pcp_world_size", "pcp_rank", "device", "shard_decode_requests", "req_states",
            "max_num_reqs", "max_num_tokens")) if has_pcp else None,
        pcp_partition=find(pcp_manager, "PCPManager.partition_batch",
                           ("input_batch", "batch_desc"), method=True) if has_pcp else None,
        pcp_layout=find(pcp_manager, "PCPManager._build_batch_layout", (
            "num_scheduled_tokens", "num_computed_tokens", "is_prefilling",
            "query_start_loc_np"), method=True) if has_pcp else None,
    )


API = detect()
if API.prepare.takes("batch_req_state") and API.gather is None:
    raise UnknownApi(f"vLLM {VERSION}: GPUModelRunner.prepare_inputs takes batch_req_state "
                     f"but there is no GPUModelRunner.gather_batch_req_state to build it")

__all__ = ["API", "VERSION", "Call", "Runner", "SchedulerOutput", "UnknownApi",
           "buffer_utils", "input_batch", "model_runner", "pcp_manager", "states",
           "torch_utils"]
