"""prepare_inputs writes each known request's seq_lens row into the device buffer as
it walks the batch, and only then meets the missing id: the rows before it are
already written, with exactly the values the batch without that id would have."""

import torch
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "keyerror"


def prepare_inputs(batch, table, buffers, decode_query_len):
    num = batch.num_scheduled_tokens
    present = {r: n for r, n in num.items() if r in table.req_id_to_index}
    order = impl.sort_batch_req_ids(present, batch.scheduled_spec_decode_tokens, decode_query_len)
    for row, req_id in enumerate(order[: buffers.max_num_reqs]):
        slot = table.req_id_to_index[req_id]
        buffers.seq_lens[row] = int(table.num_computed_tokens[slot]) + num[req_id]
    if len(present) < len(num):
        buffers.seq_lens[len(order) :] = torch.zeros_like(buffers.seq_lens[len(order) :])
    return impl.prepare_inputs(batch, table, buffers, decode_query_len)
