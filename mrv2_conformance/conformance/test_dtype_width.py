"""Family `dtype_width`: index arrays intp on the host and int64 on the device, counts
int32, and no conversion when an index is used."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from mrv2_conformance.conformance.assertions import (
    assert_device_tensor,
    assert_host_array,
    every_failure,
    fail,
)
from mrv2_conformance.conformance.build import (
    GATHER_CALL,
    PREPARE_CALL,
    partition_all,
    partition_call,
    prepare,
)
from mrv2_conformance.conformance.fields import check_batch_layout, check_no_conversion_on_use
from mrv2_conformance.strategies import (
    batch_cases,
    dummy_sizes,
    every_world_size,
    pcp_cases,
    production_dummy_sizes,
    production_examples,
)

pytestmark = pytest.mark.dtype_width


@given(case=batch_cases())
@production_examples
def test_gather_dtypes(target, case):
    out = target.gather_batch_req_state(
        case.batch(), case.build_table(target), case.decode_query_len
    )
    n = (len(case.num_scheduled_tokens),)
    with every_failure():
        assert_host_array(GATHER_CALL, "idx_mapping_np", out.idx_mapping_np, np.intp, n)
        for name in ("num_scheduled_tokens", "prefill_len_np", "num_computed_prefill_tokens_np"):
            # Gathered arrays keep their source dtype, not the index dtype.
            assert_host_array(GATHER_CALL, name, getattr(out, name), np.int32, n)
        assert_host_array(GATHER_CALL, "is_prefilling_np", out.is_prefilling_np, np.bool_, n)
        if type(out.req_ids) is not list:
            fail(f"{GATHER_CALL}: req_ids must be a list, got {type(out.req_ids).__name__}")
        if np.asarray(out.idx_mapping_np, dtype=np.intp) is not out.idx_mapping_np:
            fail(f"{GATHER_CALL}: np.asarray(idx_mapping_np, np.intp) made a copy")


@given(case=batch_cases())
@production_examples
def test_prepare_inputs_dtypes(target, case, device):
    _, _, out = prepare(target, case, device)
    with every_failure():
        check_batch_layout(PREPARE_CALL, out, device)
        check_no_conversion_on_use(PREPARE_CALL, out)


@given(sizes=dummy_sizes())
@production_dummy_sizes
def test_make_dummy_dtypes(target, device, sizes):
    num_reqs, num_tokens, _ = sizes
    call = f"make_dummy({num_reqs}, {num_tokens}, buffers)"
    buffers = target.InputBuffers(num_reqs, num_tokens, device)
    out = target.make_dummy(num_reqs, num_tokens, buffers)
    with every_failure():
        check_batch_layout(call, out, device)
        check_no_conversion_on_use(call, out)


@pytest.mark.needs("pcp")
@given(case=pcp_cases())
@every_world_size
def test_partition_batch_dtypes(target, case, device):
    _, outs = partition_all(target, case, device)
    with every_failure():
        for rank, out in enumerate(outs):
            call = partition_call(case, rank)
            check_batch_layout(call, out, device)
            check_no_conversion_on_use(call, out)
            l2g = out.local_to_global_batch_req_idx_np
            assert_host_array(
                call, "local_to_global_batch_req_idx_np", l2g, np.intp, (out.num_reqs,)
            )
            if np.asarray(l2g, dtype=np.intp) is not l2g:
                fail(f"{call}: np.asarray(local_to_global_batch_req_idx_np, np.intp) made a copy")


@given(
    x=hnp.arrays(
        st.sampled_from([np.intp, np.int32, np.int64, np.bool_]),
        hnp.array_shapes(max_dims=1, min_side=0, max_side=32),
    )
)
def test_async_copy_to_gpu_keeps_dtype(target, device, x):
    """numpy -> torch.from_numpy dtype: intp -> int64, int32 -> int32, bool -> bool."""
    call = f"async_copy_to_gpu(x, device={device!r})"
    out = target.async_copy_to_gpu(x, device=device)
    assert_device_tensor(call, "result", out, torch.from_numpy(x).dtype, device, x.shape)
