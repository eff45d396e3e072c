"""PCP without head-tail pairing: rank r takes the contiguous chunks 2r and 2r+1."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.tests.mutants._pcp import make_rank_segments, patched_pcp

FAMILY = "pcp"
build_pcp_layout, partition_batch = patched_pcp(
    make_rank_segments(chunk_ids=lambda w, r: (2 * r, 2 * r + 1))
)
