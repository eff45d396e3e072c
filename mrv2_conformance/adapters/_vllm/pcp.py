"""PCP on the installed vLLM: ``PCPManager.partition_batch`` and its layout.

One manager per (world size, rank), built with no block tables (the partition does
not read them), decodes replicated (``shard_decode_requests=False`` where the
release has it: CONTRACT F3). The manager's local buffers are the ones the suite
passes in, so capacity errors are about them. ``build_pcp_layout`` runs the
manager's own ``_build_batch_layout`` and only renames its segments to the suite's
``RankSegment`` fields.

``local_to_global_batch_req_idx_np`` is a local variable upstream, not a field of
the local batch. The adapter recovers it from the local ``req_ids`` (request ids
are unique in a batch) and sets it on the batch as ``np.intp``: its *values* are
checked against upstream's layout, its *dtype* is the adapter's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from mrv2_conformance.adapters._vllm.environment import host_memory_stand_ins
from mrv2_conformance.adapters._vllm.interface import req_states_of
from mrv2_conformance.adapters._vllm.runner import eager_descriptor
from mrv2_conformance.adapters._vllm.upstream import API, VERSION, UnknownApi, buffer_utils, need

__all__ = ["PcpLayout", "RankSegment", "build_pcp_layout", "partition_batch"]


@dataclass(frozen=True)
class RankSegment:
    global_req_idx: int
    global_start: int
    num_tokens: int
    start_pos: int


@dataclass
class PcpLayout:
    world_size: int
    segments_by_rank: list[list[RankSegment]]
    per_rank_num_tokens: list[int]
    padded_num_tokens: int
    hidden_restore_idx: np.ndarray


def _manager(
    world_size: int, rank: int, device: torch.device, global_batch: Any, input_buffers: Any | None
) -> Any:
    # Decodes replicated; 0.27.1 reads the slot table the batch came from.
    kwargs: dict[str, Any] = dict(
        shard_decode_requests=False,
        req_states=req_states_of(global_batch),
        **dict(API.classes.pcp_kwargs),
    )
    if input_buffers is not None:  # sizes the manager's per-row state for these buffers
        kwargs["max_num_reqs"] = -(-input_buffers.max_num_reqs // 2)
        kwargs["max_num_tokens"] = input_buffers.max_num_tokens
    with host_memory_stand_ins(buffer_utils):
        manager = need(API.pcp_init, "PCPManager")(
            pcp_world_size=world_size, pcp_rank=rank, device=device, **kwargs
        )
    if input_buffers is not None:
        if not hasattr(manager, "_input_buffers"):
            raise UnknownApi(
                f"vLLM {VERSION}: PCPManager keeps no _input_buffers, which the "
                f"adapter replaces with the suite's local buffers"
            )
        manager._input_buffers = input_buffers  # its own are 2 * max_num_reqs rows
    return manager


def _layout_call(manager: Any, global_batch: Any) -> tuple[list[list[Any]], list[int]]:
    with host_memory_stand_ins(buffer_utils):
        return need(API.pcp_layout, "PCP rank layout")(
            manager,
            num_scheduled_tokens=global_batch.num_scheduled_tokens,
            num_computed_tokens=global_batch.num_computed_tokens_np,
            is_prefilling=global_batch.is_prefilling_np,
            query_start_loc_np=global_batch.query_start_loc_np,
        )


def build_pcp_layout(global_batch: Any, pcp_world_size: int) -> PcpLayout:
    device = torch.device(global_batch.idx_mapping.device)
    manager = _manager(pcp_world_size, 0, device, global_batch, None)
    segments_by_rank, per_rank = _layout_call(manager, global_batch)
    qsl, computed = global_batch.query_start_loc_np, global_batch.num_computed_tokens_np
    renamed = [
        [
            RankSegment(
                s.global_batch_req_idx,
                s.global_batch_slice.start,
                s.num_tokens,
                int(
                    computed[s.global_batch_req_idx]
                    + s.global_batch_slice.start
                    - qsl[s.global_batch_req_idx]
                ),
            )
            for s in segments
        ]
        for segments in segments_by_rank
    ]
    return PcpLayout(
        pcp_world_size,
        renamed,
        list(per_rank),
        max(per_rank),
        manager._hidden_restore_idx.cpu().numpy(),
    )


def partition_batch(
    global_batch: Any, pcp_world_size: int, pcp_rank: int, input_buffers: Any
) -> Any:
    manager = _manager(
        pcp_world_size, pcp_rank, torch.device(input_buffers.device), global_batch, input_buffers
    )
    with host_memory_stand_ins(buffer_utils):
        local = need(API.pcp_partition, "PCPManager.partition")(
            manager, input_batch=global_batch, batch_desc=eager_descriptor(global_batch.num_tokens)
        )
    row_of = {req_id: row for row, req_id in enumerate(global_batch.req_ids)}
    local.local_to_global_batch_req_idx_np = np.array(
        [row_of[r] for r in local.req_ids], dtype=np.intp
    )
    return local


def contract_revision() -> str:
    """The contract revision this release implements (contract.py), read
    from what its own ``_build_batch_layout`` does with a probe batch on one rank: a
    pure prefill, a prefill past its start, and a decode, each revision ordering them
    differently. An order that is no known revision stops the run, naming it."""
    from mrv2_conformance.impl.pcp import RankSegment as Row
    from mrv2_conformance.impl.revisions import REVISIONS, order_rank_rows

    counts, computed, prefilling = [2, 2, 1], [0, 3, 5], [True, True, False]
    qsl = np.concatenate([[0], np.cumsum(counts)])
    with host_memory_stand_ins(buffer_utils):
        manager = need(API.pcp_init, "PCPManager")(
            pcp_world_size=1,
            pcp_rank=0,
            device=torch.device("cpu"),
            shard_decode_requests=False,
            req_states=None,
            **dict(API.classes.pcp_kwargs),
        )
        segments, _ = need(API.pcp_layout, "PCP rank layout")(
            manager,
            num_scheduled_tokens=np.array(counts, dtype=np.int32),
            num_computed_tokens=np.array(computed, dtype=np.int32),
            is_prefilling=np.array(prefilling),
            query_start_loc_np=qsl.astype(np.int32),
        )
    got = [(s.global_batch_req_idx, s.global_batch_slice.start) for s in segments[0]]
    # The same rows in global order (rank 0 of 1 takes both chunks of a prefill).
    rows = [Row(g, int(qsl[g]) + j, 1, computed[g] + j) for g in (0, 1) for j in (0, 1)]
    rows.append(Row(2, int(qsl[2]), 1, computed[2]))
    for name in REVISIONS:
        if got == [
            (r.global_req_idx, r.global_start) for r in order_rank_rows(rows, prefilling, name)
        ]:
            return name
    raise UnknownApi(
        f"vLLM {VERSION}: PCPManager orders a rank's (row, token start) as {got} "
        f"for a probe batch, which matches no contract revision the suite knows "
        f"({', '.join(REVISIONS)})"
    )
