"""partition_batch wraps an out-of-range rank modulo the world size instead of
rejecting it, and treats a world size below 1 as 1."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "pcp"


def partition_batch(global_batch, pcp_world_size, pcp_rank, input_buffers):
    world = max(1, pcp_world_size)
    return impl.partition_batch(global_batch, world, pcp_rank % world, input_buffers)
