"""prepare_inputs writes query_start_loc into the shared buffers before the lookups,
so a KeyError leaves the buffers half-changed."""
import numpy as np

import impl
from impl import *  # noqa: F401,F403
from impl import prepare

FAMILY = "keyerror"


def prepare_inputs(batch, table, buffers, decode_query_len):
    counts = np.array(list(batch.num_scheduled_tokens.values()), dtype=np.int32)
    if len(counts) <= buffers.max_num_reqs and counts.sum() <= buffers.max_num_tokens:
        prepare.write_query_start_loc(buffers, prepare.cumsum_with_zero(counts),
                                      int(counts.sum()))
    return impl.prepare_inputs(batch, table, buffers, decode_query_len)
