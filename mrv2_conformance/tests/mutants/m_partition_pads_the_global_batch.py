"""partition_batch records the PCP-padded token count on the global batch
(num_tokens_after_padding), which it only reads."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "effects"


def partition_batch(global_batch, pcp_world_size, pcp_rank, input_buffers, **kwargs):
    local = impl.partition_batch(global_batch, pcp_world_size, pcp_rank, input_buffers, **kwargs)
    global_batch.num_tokens_after_padding = local.num_tokens_after_padding
    return local
