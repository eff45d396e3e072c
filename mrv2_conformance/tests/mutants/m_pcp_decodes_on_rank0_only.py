"""PCP sends each decode to rank 0 only instead of replicating it to every rank."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.tests.mutants._pcp import make_rank_segments, patched_pcp

FAMILY = "pcp"
build_pcp_layout, partition_batch = patched_pcp(make_rank_segments(replicate_decodes=False))
