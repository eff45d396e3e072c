"""make_dummy puts the +1 remainder tokens on the first requests, not the last."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "dummy_parity"


def make_dummy(num_reqs, num_tokens, input_buffers, max_query_len=None):
    out = impl.make_dummy(num_reqs, num_tokens, input_buffers, max_query_len)
    split = out.num_scheduled_tokens[::-1].copy()
    qsl = np.concatenate([[0], np.cumsum(split)]).astype(np.int32)
    out.num_scheduled_tokens = split
    out.query_start_loc_np = qsl
    out.query_start_loc.copy_(impl.async_copy_to_gpu(qsl, device=out.query_start_loc.device))
    out.seq_lens.copy_(impl.async_copy_to_gpu(split, device=out.seq_lens.device))
    out.logits_indices = impl.async_copy_to_gpu(
        qsl[1:].astype(np.int64) - 1, device=out.logits_indices.device
    )
    return out
