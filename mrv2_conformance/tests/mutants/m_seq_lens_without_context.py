"""seq_lens omits the computed context: it is just the scheduled tokens."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "ordering"


def prepare_inputs(batch, table, buffers, decode_query_len):
    out = impl.prepare_inputs(batch, table, buffers, decode_query_len)
    out.seq_lens.copy_(
        impl.async_copy_to_gpu(
            out.num_scheduled_tokens.astype(np.int32), device=out.seq_lens.device
        )
    )
    return out
