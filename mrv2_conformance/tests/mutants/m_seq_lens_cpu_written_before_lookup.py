"""A backend's extra host buffer: InputBuffers gains a numpy seq_lens_cpu, and
prepare_inputs fills it row by row while it looks the ids up, so a missing id leaves
the rows before it written (as a real out-of-tree port does)."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "keyerror"


class InputBuffers(impl.InputBuffers):
    def __init__(self, max_num_reqs, max_num_tokens, device):
        super().__init__(max_num_reqs, max_num_tokens, device)
        self.seq_lens_cpu = np.zeros(self.max_num_reqs, dtype=np.int32)


def prepare_inputs(batch, table, buffers, decode_query_len):
    num = batch.num_scheduled_tokens
    order = impl.sort_batch_req_ids(num, batch.scheduled_spec_decode_tokens, decode_query_len)
    for row, req_id in enumerate(order[: buffers.max_num_reqs]):
        slot = table.req_id_to_index[req_id]
        buffers.seq_lens_cpu[row] = table.num_computed_tokens[slot] + num[req_id]
    return impl.prepare_inputs(batch, table, buffers, decode_query_len)
