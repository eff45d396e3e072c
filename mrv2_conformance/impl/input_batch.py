"""The per-step input batch (the index-mapping fields of upstream ``InputBatch``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


@dataclass
class InputBatch:
    req_ids: list[str]
    num_reqs: int
    # batch position -> slot; host intp, device int64
    idx_mapping: torch.Tensor
    idx_mapping_np: np.ndarray
    # one entry per sampled logit: the slot (int64) and the position within its
    # request (int32). Without drafts expanded_idx_mapping IS idx_mapping.
    expanded_idx_mapping: torch.Tensor
    expanded_local_pos: torch.Tensor
    num_scheduled_tokens: np.ndarray  # int32 [num_reqs]
    num_tokens: int
    num_tokens_after_padding: int
    num_draft_tokens: int
    query_start_loc: torch.Tensor  # int32 [num_reqs + 1]
    query_start_loc_np: np.ndarray
    seq_lens: torch.Tensor  # int32 [num_reqs]
    num_computed_tokens_np: np.ndarray  # int32 [num_reqs]
    prefill_len_np: np.ndarray  # int32 [num_reqs]
    num_computed_prefill_tokens_np: np.ndarray  # int32 [num_reqs]
    is_prefilling_np: np.ndarray  # bool [num_reqs]
    has_prefill: bool
    logits_indices: torch.Tensor  # int64 [num_logits]
    cu_num_logits: torch.Tensor  # int32 [num_reqs + 1]
    cu_num_logits_np: np.ndarray
    # PCP only: local row -> global batch row (intp). None outside PCP.
    local_to_global_batch_req_idx_np: np.ndarray | None = None
