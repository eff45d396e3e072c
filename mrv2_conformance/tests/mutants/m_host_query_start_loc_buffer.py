"""InputBuffers keeps a persistent host query_start_loc_np, and a batch's
query_start_loc_np is a view of it: the next batch built into the same buffers
rewrites the previous batch's host array."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "aliasing"


class InputBuffers(impl.InputBuffers):
    def __init__(self, max_num_reqs, max_num_tokens, device):
        super().__init__(max_num_reqs, max_num_tokens, device)
        self.query_start_loc_np = np.zeros(self.max_num_reqs + 1, dtype=np.int32)


def _into_buffer(out, buffers):
    n = len(out.query_start_loc_np)
    buffers.query_start_loc_np[:n] = out.query_start_loc_np
    out.query_start_loc_np = buffers.query_start_loc_np[:n]
    return out


def prepare_inputs(batch, table, buffers, decode_query_len):
    return _into_buffer(impl.prepare_inputs(batch, table, buffers, decode_query_len), buffers)


def make_dummy(num_reqs, num_tokens, buffers, max_query_len=None):
    return _into_buffer(impl.make_dummy(num_reqs, num_tokens, buffers, max_query_len), buffers)
