"""F2: the dummy batch used for warm-up, profiling and graph capture."""

from __future__ import annotations

import numpy as np
import torch
from mrv2_conformance.impl._checks import check_int
from mrv2_conformance.impl.buffers import InputBuffers
from mrv2_conformance.impl.h2d import async_copy_to_gpu
from mrv2_conformance.impl.input_batch import InputBatch
from mrv2_conformance.impl.prepare import cumsum_with_zero, write_query_start_loc, write_seq_lens


def make_dummy(
    num_reqs: int, num_tokens: int, input_buffers: InputBuffers, max_query_len: int | None = None
) -> InputBatch:
    """A batch of ``num_reqs`` fresh decodes-shaped requests over ``num_tokens``.

    Same fields, types, dtypes, devices and aliasing as a real batch: the dummy
    exists to warm up / capture the real path, so any difference is a bug.
    It reads and writes no slot table.
    """
    num_reqs = check_int("num_reqs", num_reqs)
    num_tokens = check_int("num_tokens", num_tokens)
    if not 0 < num_reqs <= num_tokens:
        raise ValueError(
            f"make_dummy needs 0 < num_reqs <= num_tokens, got "
            f"num_reqs={num_reqs}, num_tokens={num_tokens}"
        )
    input_buffers.check_capacity("make_dummy", num_reqs, num_tokens)
    base, num_extra = divmod(num_tokens, num_reqs)
    longest = base + (num_extra > 0)
    if max_query_len is not None:
        max_query_len = check_int("max_query_len", max_query_len, minimum=1)
        if longest > max_query_len:
            raise ValueError(
                f"make_dummy: {num_tokens} tokens over {num_reqs} requests "
                f"needs a query of {longest} > max_query_len={max_query_len}"
            )
    device = input_buffers.device

    num_scheduled_tokens = np.full(num_reqs, base, dtype=np.int32)
    if num_extra:
        num_scheduled_tokens[-num_extra:] += 1
    query_start_loc_np = cumsum_with_zero(num_scheduled_tokens)
    zeros = np.zeros(num_reqs, dtype=np.int32)
    idx_mapping_np = np.arange(num_reqs, dtype=np.intp)
    idx_mapping = async_copy_to_gpu(idx_mapping_np, device=device)
    cu_num_logits_np = np.arange(num_reqs + 1, dtype=np.int32)
    return InputBatch(
        req_ids=[f"dummy_req_{i}" for i in range(num_reqs)],
        num_reqs=num_reqs,
        idx_mapping=idx_mapping,
        idx_mapping_np=idx_mapping_np,
        expanded_idx_mapping=idx_mapping,
        expanded_local_pos=torch.zeros(num_reqs, dtype=torch.int32, device=device),
        num_scheduled_tokens=num_scheduled_tokens,
        num_tokens=num_tokens,
        num_tokens_after_padding=num_tokens,
        num_draft_tokens=0,
        query_start_loc=write_query_start_loc(input_buffers, query_start_loc_np, num_tokens),
        query_start_loc_np=query_start_loc_np,
        # No context: the sequence is just the query.
        seq_lens=write_seq_lens(input_buffers, num_scheduled_tokens),
        num_computed_tokens_np=zeros,
        prefill_len_np=zeros.copy(),
        num_computed_prefill_tokens_np=zeros.copy(),
        is_prefilling_np=np.zeros(num_reqs, dtype=np.bool_),
        has_prefill=False,
        # int64 like a real batch (upstream's dummy has int32 here: a known deviation).
        logits_indices=async_copy_to_gpu(
            query_start_loc_np[1:].astype(np.int64) - 1, device=device
        ),
        cu_num_logits=async_copy_to_gpu(cu_num_logits_np, device=device),
        cu_num_logits_np=cu_num_logits_np,
    )
