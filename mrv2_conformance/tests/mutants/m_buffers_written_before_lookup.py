"""prepare_inputs writes query_start_loc into the shared buffers before the lookups,
so a KeyError leaves the buffers half-changed."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare

from mrv2_conformance import impl

FAMILY = "keyerror"


def prepare_inputs(batch, table, buffers, decode_query_len):
    counts = np.array(list(batch.num_scheduled_tokens.values()), dtype=np.int32)
    if len(counts) <= buffers.max_num_reqs and counts.sum() <= buffers.max_num_tokens:
        prepare.write_query_start_loc(buffers, prepare.cumsum_with_zero(counts), int(counts.sum()))
    return impl.prepare_inputs(batch, table, buffers, decode_query_len)
