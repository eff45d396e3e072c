"""Inputs that are not scheduler batches: dummy-batch sizes and host arrays to copy."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from mrv2_conformance.strategies.slot_tables import table_sizes

# intp, int32 and bool: the index, count and mask dtypes the contract moves to a device.
copy_sources = hnp.arrays(st.sampled_from([np.intp, np.int32, np.bool_]),
                          hnp.array_shapes(max_dims=1, min_side=1, max_side=64))


@st.composite
def dummy_sizes(draw: st.DrawFn) -> tuple[int, int, int | None]:
    """(num_reqs, num_tokens, max_query_len) that make_dummy must accept."""
    num_reqs = draw(table_sizes(), label="num_reqs")
    num_tokens = num_reqs + draw(st.integers(0, 80), label="extra_tokens")
    longest = -(-num_tokens // num_reqs)
    max_query_len = draw(st.none() | st.integers(longest, longest + 4), label="max_query_len")
    return num_reqs, num_tokens, max_query_len
