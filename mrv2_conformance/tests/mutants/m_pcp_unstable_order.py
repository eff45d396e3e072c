"""PCP moves pure prefills last but reorders rows within each group (not stable)."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.tests.mutants._pcp import make_rank_segments, patched_pcp

FAMILY = "pcp"
build_pcp_layout, partition_batch = patched_pcp(make_rank_segments(reverse_within_group=True))
