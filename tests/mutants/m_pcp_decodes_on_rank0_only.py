"""PCP sends each decode to rank 0 only instead of replicating it to every rank."""
from impl import *  # noqa: F401,F403
from tests.mutants._pcp import make_rank_segments, patched_pcp

FAMILY = "pcp"
build_pcp_layout, partition_batch = patched_pcp(make_rank_segments(replicate_decodes=False))
