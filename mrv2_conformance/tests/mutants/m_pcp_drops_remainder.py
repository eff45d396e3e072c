"""PCP chunks of floor(q / 2W): the remainder of every prefill is dropped."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.tests.mutants._pcp import make_rank_segments, patched_pcp

FAMILY = "pcp"
build_pcp_layout, partition_batch = patched_pcp(make_rank_segments(chunk_size=lambda q, n: q // n))
