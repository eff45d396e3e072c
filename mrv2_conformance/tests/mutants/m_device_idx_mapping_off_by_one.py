"""The device idx_mapping points one slot further than idx_mapping_np (mod capacity)."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "device_host"


def prepare_inputs(batch, table, buffers, decode_query_len):
    out = impl.prepare_inputs(batch, table, buffers, decode_query_len)
    aliased = out.expanded_idx_mapping is out.idx_mapping
    out.idx_mapping = (out.idx_mapping + 1) % table.max_num_reqs
    if aliased:
        out.expanded_idx_mapping = out.idx_mapping
    return out
