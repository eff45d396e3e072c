"""PCP moves pure prefills last but reorders rows within each group (not stable)."""
from impl import *  # noqa: F401,F403
from tests.mutants._pcp import make_rank_segments, patched_pcp

FAMILY = "pcp"
build_pcp_layout, partition_batch = patched_pcp(make_rank_segments(reverse_within_group=True))
