"""F3: prefill context parallel (PCP) partition of a global batch across ranks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from dataclasses import dataclass

import numpy as np
import torch
from mrv2_conformance.impl._checks import check_int
from mrv2_conformance.impl.buffers import InputBuffers
from mrv2_conformance.impl.h2d import async_copy_to_gpu
from mrv2_conformance.impl.input_batch import InputBatch
from mrv2_conformance.impl.prepare import cumsum_with_zero, write_query_start_loc, write_seq_lens
from mrv2_conformance.impl.revisions import DEFAULT, check_revision, order_rank_rows


@dataclass(frozen=True)
class RankSegment:
    """A contiguous run of one request's query tokens that one rank computes."""

    global_req_idx: int  # row in the global batch
    global_start: int  # first token in the global flat token order
    num_tokens: int
    start_pos: int  # position of the first token within its request

    def is_pure_prefill(self, is_prefilling: Sequence[bool] | np.ndarray) -> bool:
        return bool(is_prefilling[self.global_req_idx]) and self.start_pos == 0


@dataclass
class PcpLayout:
    world_size: int
    segments_by_rank: list[list[RankSegment]]
    per_rank_num_tokens: list[int]
    padded_num_tokens: int  # max over ranks: every rank pads to it
    # [global num_tokens] int64: global = all_gathered_padded_outputs[hidden_restore_idx]
    hidden_restore_idx: np.ndarray


def _check_world(world_size: int, rank: int | None = None) -> int:
    world_size = check_int("pcp_world_size", world_size, minimum=1)
    if rank is not None:
        check_int("pcp_rank", rank, minimum=0, maximum=world_size - 1)
    return world_size


def _check_no_drafts(global_batch: InputBatch) -> None:
    if global_batch.num_draft_tokens > 0:
        raise NotImplementedError(
            f"PCP does not support speculative decoding: the batch has "
            f"{global_batch.num_draft_tokens} draft tokens"
        )


def _rank_segments(
    global_batch: InputBatch, world_size: int, rank: int, revision: str = DEFAULT
) -> list[RankSegment]:
    """Head-tail pairing: a prefill of q tokens is cut into 2W chunks of
    ceil(q / 2W); rank r takes chunks r and 2W-1-r, which balances causal-attention
    work. Decodes are replicated. The rows are then in ``revision``'s order."""
    num_chunks = 2 * world_size
    # Plain lists: element access on numpy arrays dominated the partition's cost.
    starts = global_batch.query_start_loc_np.tolist()
    computed = global_batch.num_computed_tokens_np.tolist()
    prefilling = global_batch.is_prefilling_np.tolist()
    segments: list[RankSegment] = []
    for g, q in enumerate(global_batch.num_scheduled_tokens.tolist()):
        if q == 0:
            continue
        if prefilling[g]:
            chunk = -(-q // num_chunks)
            pieces = [(c * chunk, min(chunk, q - c * chunk)) for c in (rank, num_chunks - 1 - rank)]
        else:
            pieces = [(0, q)]
        segments += [
            RankSegment(g, starts[g] + offset, length, computed[g] + offset)
            for offset, length in pieces
            if length > 0
        ]
    return order_rank_rows(segments, prefilling, revision)


class _LastLayout:
    """The segments of every rank of the last global batch laid out. A runner
    partitions one global batch once per rank, and each rank needs every rank's token
    count (the padded size): without this, a W-rank partition builds W^2 rank layouts.
    Keyed by everything the segments depend on (the batch's values, not its identity),
    and by the segment builder itself."""

    __slots__ = ("key", "value")

    def __init__(self) -> None:
        self.key: tuple[Any, ...] | None = None
        self.value: tuple[list[list[RankSegment]], list[int], int] | None = None


_LAST = _LastLayout()  # an instance: the suite's fingerprint of this module holds still


def _layout_key(global_batch: InputBatch, world_size: int, revision: str) -> tuple[Any, ...]:
    arrays = (
        global_batch.num_scheduled_tokens,
        global_batch.query_start_loc_np,
        global_batch.num_computed_tokens_np,
        global_batch.is_prefilling_np,
    )
    return (
        _rank_segments,
        world_size,
        revision,
        *((a.dtype.str, a.shape, a.tobytes()) for a in map(np.asarray, arrays)),
    )


def _all_ranks(
    global_batch: InputBatch, world_size: int, revision: str
) -> tuple[list[list[RankSegment]], list[int], int]:
    """(segments of every rank, tokens per rank, the padded size: their max)."""
    key = _layout_key(global_batch, world_size, revision)
    if key == _LAST.key and _LAST.value is not None:
        return _LAST.value
    segments_by_rank = [
        _rank_segments(global_batch, world_size, r, revision) for r in range(world_size)
    ]
    per_rank = [sum(s.num_tokens for s in segs) for segs in segments_by_rank]
    _LAST.key, _LAST.value = key, (segments_by_rank, per_rank, max(per_rank))
    return _LAST.value


def build_pcp_layout(
    global_batch: InputBatch, pcp_world_size: int, *, revision: str = DEFAULT
) -> PcpLayout:
    world_size = _check_world(pcp_world_size)
    _check_no_drafts(global_batch)
    segments_by_rank, per_rank, padded = _all_ranks(
        global_batch, world_size, check_revision(revision)
    )
    restore = np.full(global_batch.num_tokens, -1, dtype=np.int64)
    for rank, segments in enumerate(segments_by_rank):
        local_start = rank * padded
        for seg in segments:
            # A decode is computed on every rank; rank 0's copy is the one kept.
            if rank == 0 or global_batch.is_prefilling_np[seg.global_req_idx]:
                restore[seg.global_start : seg.global_start + seg.num_tokens] = np.arange(
                    local_start, local_start + seg.num_tokens
                )
            local_start += seg.num_tokens
    # Copies: the lists are _LastLayout's, and a layout belongs to its caller.
    return PcpLayout(
        world_size, [list(segs) for segs in segments_by_rank], list(per_rank), padded, restore
    )


def partition_batch(
    global_batch: InputBatch,
    pcp_world_size: int,
    pcp_rank: int,
    input_buffers: InputBuffers,
    *,
    revision: str = DEFAULT,
) -> InputBatch:
    """This rank's local batch, its rows in ``revision``'s order. Validates and checks
    capacity before writing the (rank-local) buffers, so a failed call changes nothing."""
    world_size = _check_world(pcp_world_size, pcp_rank)
    _check_no_drafts(global_batch)
    check_revision(revision)
    # Every rank's segments (for the padded size), but not the restore index: a rank
    # does not need it, and building it per rank made a W-rank partition O(W^2 tokens).
    segments_by_rank, _, padded_num_tokens = _all_ranks(global_batch, world_size, revision)
    segments = segments_by_rank[pcp_rank]
    if not segments:  # placeholder row: 0 tokens, no logits
        segments = [RankSegment(0, 0, 0, 0)]
    num_local_reqs = len(segments)
    if num_local_reqs > input_buffers.max_num_reqs:
        raise RuntimeError(
            f"PCP rank {pcp_rank}: {num_local_reqs} local requests exceed "
            f"the buffers' max_num_reqs={input_buffers.max_num_reqs}"
        )
    if padded_num_tokens > input_buffers.max_num_tokens:
        raise RuntimeError(
            f"PCP rank {pcp_rank}: {padded_num_tokens} padded tokens "
            f"exceed the buffers' max_num_tokens={input_buffers.max_num_tokens}"
        )
    device = input_buffers.device

    local_to_global = np.fromiter(
        (s.global_req_idx for s in segments), dtype=np.intp, count=num_local_reqs
    )
    num_scheduled_tokens = np.fromiter(
        (s.num_tokens for s in segments), dtype=np.int32, count=num_local_reqs
    )
    start_pos = np.fromiter((s.start_pos for s in segments), dtype=np.int32, count=num_local_reqs)
    num_tokens = int(num_scheduled_tokens.sum())
    idx_mapping_np = global_batch.idx_mapping_np[local_to_global]
    idx_mapping = async_copy_to_gpu(idx_mapping_np, device=device)
    prefill_len_np = global_batch.prefill_len_np[local_to_global]
    num_computed_prefill_np = np.minimum(start_pos, prefill_len_np)
    is_prefilling_np = num_computed_prefill_np < prefill_len_np
    query_start_loc_np = cumsum_with_zero(num_scheduled_tokens)
    if num_tokens > 0:  # one logit per local row: its last token
        cu_num_logits_np = np.arange(num_local_reqs + 1, dtype=np.int32)
        logits_indices_np = query_start_loc_np[1:].astype(np.int64) - 1
    else:
        cu_num_logits_np = np.zeros(num_local_reqs + 1, dtype=np.int32)
        logits_indices_np = np.zeros(0, dtype=np.int64)
    return InputBatch(
        req_ids=[global_batch.req_ids[g] for g in local_to_global.tolist()],
        num_reqs=num_local_reqs,
        idx_mapping=idx_mapping,
        idx_mapping_np=idx_mapping_np,
        expanded_idx_mapping=idx_mapping,
        expanded_local_pos=torch.zeros(num_local_reqs, dtype=torch.int32, device=device),
        num_scheduled_tokens=num_scheduled_tokens,
        num_tokens=num_tokens,
        num_tokens_after_padding=padded_num_tokens,
        num_draft_tokens=0,
        query_start_loc=write_query_start_loc(input_buffers, query_start_loc_np, num_tokens),
        query_start_loc_np=query_start_loc_np,
        seq_lens=write_seq_lens(input_buffers, start_pos + num_scheduled_tokens),
        num_computed_tokens_np=start_pos,
        prefill_len_np=prefill_len_np,
        num_computed_prefill_tokens_np=num_computed_prefill_np,
        is_prefilling_np=is_prefilling_np,
        has_prefill=bool(is_prefilling_np.any()),
        logits_indices=async_copy_to_gpu(logits_indices_np, device=device),
        cu_num_logits=async_copy_to_gpu(cu_num_logits_np, device=device),
        cu_num_logits_np=cu_num_logits_np,
        local_to_global_batch_req_idx_np=local_to_global,
    )
