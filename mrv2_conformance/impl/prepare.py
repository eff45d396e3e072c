"""F1.3: build the input batch of one scheduler step."""

from __future__ import annotations

import numpy as np
import torch
from mrv2_conformance.impl.buffers import InputBuffers
from mrv2_conformance.impl.gather import gather_batch_req_state
from mrv2_conformance.impl.h2d import async_copy_to_gpu
from mrv2_conformance.impl.input_batch import InputBatch
from mrv2_conformance.contract import SchedulerBatch
from mrv2_conformance.impl.slot_table import SlotTable


def cumsum_with_zero(counts: np.ndarray) -> np.ndarray:
    """``[0, cumsum(counts)]`` as int32."""
    out = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=out[1:])
    return out


def write_query_start_loc(
    buffers: InputBuffers, query_start_loc_np: np.ndarray, num_tokens: int
) -> torch.Tensor:
    """Copy into the persistent buffer, padding the tail with ``num_tokens`` (as
    full-graph replays expect) so nothing from an earlier batch survives."""
    num_reqs = len(query_start_loc_np) - 1
    padded = np.full(buffers.max_num_reqs + 1, num_tokens, dtype=np.int32)
    padded[: num_reqs + 1] = query_start_loc_np
    async_copy_to_gpu(padded, out=buffers.query_start_loc)
    return buffers.query_start_loc[: num_reqs + 1]


def write_seq_lens(buffers: InputBuffers, seq_lens_np: np.ndarray) -> torch.Tensor:
    padded = np.zeros(buffers.max_num_reqs, dtype=np.int32)
    padded[: len(seq_lens_np)] = seq_lens_np
    async_copy_to_gpu(padded, out=buffers.seq_lens)
    return buffers.seq_lens[: len(seq_lens_np)]


def prepare_inputs(
    batch: SchedulerBatch, slot_table: SlotTable, input_buffers: InputBuffers, decode_query_len: int
) -> InputBatch:
    """Everything host-side (including every lookup that can raise) is computed
    before the first write to ``input_buffers``, so a failed call changes nothing."""
    state = gather_batch_req_state(batch, slot_table, decode_query_len)
    num_reqs = state.num_reqs
    assert batch.total_num_scheduled_tokens is not None  # SchedulerBatch.__post_init__ sets it
    num_tokens = int(batch.total_num_scheduled_tokens)
    input_buffers.check_capacity("prepare_inputs", num_reqs, num_tokens)
    device = input_buffers.device

    num_drafts = np.fromiter(map(batch.num_drafts, state.req_ids), dtype=np.int32, count=num_reqs)
    num_logits_per_req = num_drafts + 1
    query_start_loc_np = cumsum_with_zero(state.num_scheduled_tokens)
    cu_num_logits_np = cumsum_with_zero(num_logits_per_req)
    # Each request samples its last 1 + num_drafts positions.
    ends = np.repeat(query_start_loc_np[1:].astype(np.int64), num_logits_per_req)
    local_pos = np.arange(int(cu_num_logits_np[-1]), dtype=np.int64) - np.repeat(
        cu_num_logits_np[:-1].astype(np.int64), num_logits_per_req
    )
    logits_indices_np = ends - np.repeat(num_logits_per_req, num_logits_per_req) + local_pos
    seq_lens_np = state.num_computed_tokens_np + state.num_scheduled_tokens

    idx_mapping = async_copy_to_gpu(state.idx_mapping_np, device=device)
    total_drafts = int(num_drafts.sum())
    if total_drafts == 0:
        expanded_idx_mapping = idx_mapping
        expanded_local_pos = torch.zeros(num_reqs, dtype=torch.int32, device=device)
    else:
        expanded_idx_mapping = async_copy_to_gpu(
            np.repeat(state.idx_mapping_np, num_logits_per_req), device=device
        )
        expanded_local_pos = async_copy_to_gpu(local_pos.astype(np.int32), device=device)

    return InputBatch(
        req_ids=state.req_ids,
        num_reqs=num_reqs,
        idx_mapping=idx_mapping,
        idx_mapping_np=state.idx_mapping_np,
        expanded_idx_mapping=expanded_idx_mapping,
        expanded_local_pos=expanded_local_pos,
        num_scheduled_tokens=state.num_scheduled_tokens,
        num_tokens=num_tokens,
        num_tokens_after_padding=num_tokens,
        num_draft_tokens=total_drafts,
        query_start_loc=write_query_start_loc(input_buffers, query_start_loc_np, num_tokens),
        query_start_loc_np=query_start_loc_np,
        seq_lens=write_seq_lens(input_buffers, seq_lens_np),
        num_computed_tokens_np=state.num_computed_tokens_np,
        prefill_len_np=state.prefill_len_np,
        num_computed_prefill_tokens_np=state.num_computed_prefill_tokens_np,
        is_prefilling_np=state.is_prefilling_np,
        has_prefill=state.has_prefill,
        logits_indices=async_copy_to_gpu(logits_indices_np, device=device),
        cu_num_logits=async_copy_to_gpu(cu_num_logits_np, device=device),
        cu_num_logits_np=cu_num_logits_np,
    )
