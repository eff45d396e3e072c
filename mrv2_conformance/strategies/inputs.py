"""Inputs that are not scheduler batches: dummy-batch sizes and host arrays to copy."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from hypothesis import example
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from mrv2_conformance.strategies.limits import allows
from mrv2_conformance.strategies.slot_tables import TABLE_SIZES

# intp, int32 and bool: the index, count and mask dtypes the contract moves to a device.
copy_sources = hnp.arrays(
    st.sampled_from([np.intp, np.int32, np.bool_]),
    hnp.array_shapes(max_dims=1, min_side=1, max_side=64),
)


_EXTRA = st.integers(0, 80)
_BUDGET = st.sampled_from((None,) * 6 + (2048, 8192, 16384, 65536))


@functools.cache
def _max_query_len(longest: int) -> st.SearchStrategy[int | None]:
    return st.none() | st.integers(longest, longest + 4)


@st.composite
def dummy_sizes(draw: st.DrawFn) -> tuple[int, int, int | None]:
    """(num_reqs, num_tokens, max_query_len) that make_dummy must accept."""
    num_reqs = draw(TABLE_SIZES, label="num_reqs")
    extra = draw(_EXTRA, label="extra_tokens")
    # Now and then a step of vLLM's default or a large deployment's budget (a CUDA
    # graph is captured for each), just under it.
    budget = draw(_BUDGET, label="max_num_batched_tokens")
    num_tokens = num_reqs + extra if budget is None else max(num_reqs, budget - extra)
    longest = -(-num_tokens // num_reqs)
    max_query_len = draw(_max_query_len(longest), label="max_query_len")
    if not allows("max_query_len"):  # drawn all the same (aligned choices)
        max_query_len = None
    return num_reqs, num_tokens, max_query_len


# vLLM's largest table and budget, and neighbours (CONTRACT, Terms: Magnitudes).
PRODUCTION_DUMMY_SIZES = ((1024, 65536, None), (1023, 1024, 2), (256, 16384, 64))


def production_dummy_sizes(test: Any) -> Any:
    for sizes in reversed(PRODUCTION_DUMMY_SIZES):
        test = example(sizes=sizes)(test)
    return test
