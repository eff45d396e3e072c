"""Family `device_host`: every device tensor equals its host twin; gathers on the
device equal gathers on the host; F1.4 copy semantics."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from mrv2_conformance.conformance.aliasing import batch_arrays, check_batch_aliasing, extents
from mrv2_conformance.conformance.assertions import (
    assert_device_tensor,
    assert_no_shared_memory,
    assert_same_object,
    assert_values,
    every_failure,
)
from mrv2_conformance.conformance.build import (
    PREPARE_CALL,
    partition_call,
    partition_ranks,
    prepare,
    read_in_stream_order,
    synchronize,
)
from mrv2_conformance.conformance.fields import DEVICE_TWINS, TABLE_ARRAYS
from mrv2_conformance.strategies import BatchCase
from mrv2_conformance.strategies import (
    production_dummy_sizes,
    production_examples,
    batch_cases,
    copy_sources,
    dummy_sizes,
    every_world_size,
    no_draft_entries_example,
    pcp_cases,
)

pytestmark = pytest.mark.device_host


def check_twins(call: str, batch, device: str, buffers, table=None, others=None) -> None:
    """Each device tensor vs the host array it was made from: dtype
    (torch.from_numpy's), shape and values; and that it is a copy, not the host
    array's memory, as every fresh field must be (conformance/aliasing.py)."""
    synchronize(device)
    with every_failure():
        _check_twins(call, batch, device)
        check_batch_aliasing(call, batch, buffers, table, others)


def _check_twins(call: str, batch, device: str, layout: bool = True) -> None:
    """``layout=False``: values only (dtype, device and the no-drafts identity are the
    single-call properties' business, so a deviation there fails there, once)."""
    for dev_name, host_name in DEVICE_TWINS:
        host = getattr(batch, host_name)
        if layout:
            assert_device_tensor(
                call,
                dev_name,
                getattr(batch, dev_name),
                torch.from_numpy(np.asarray(host)).dtype,
                device,
                host.shape,
            )
        assert_values(
            call, f"{dev_name} vs its host twin {host_name}", getattr(batch, dev_name), host
        )
    seq_lens_host = batch.num_computed_tokens_np + batch.num_scheduled_tokens
    assert_values(
        call,
        "seq_lens vs num_computed_tokens_np + num_scheduled_tokens",
        batch.seq_lens,
        seq_lens_host,
    )
    qsl = np.asarray(batch.query_start_loc_np, dtype=np.int64)
    cu = np.asarray(batch.cu_num_logits_np, dtype=np.int64)
    per_req = np.diff(cu)
    # Each request's logits are its last (logits count) tokens.
    ends = np.repeat(qsl[1:], per_req)
    local = np.arange(int(cu[-1])) - np.repeat(cu[:-1], per_req)
    assert_values(
        call,
        "logits_indices vs query_start_loc_np/cu_num_logits_np",
        batch.logits_indices,
        ends - np.repeat(per_req, per_req) + local,
    )
    if batch.num_draft_tokens == 0 and layout:
        assert_same_object(
            call,
            "expanded_idx_mapping",
            batch.expanded_idx_mapping,
            "idx_mapping",
            batch.idx_mapping,
        )
    else:  # with drafts, or values only
        assert_values(
            call,
            "expanded_idx_mapping vs idx_mapping_np repeated per logit",
            batch.expanded_idx_mapping,
            np.repeat(batch.idx_mapping_np, per_req),
        )


@given(case=batch_cases())
@no_draft_entries_example
@production_examples
def test_prepare_inputs_device_twins(target, case, device):
    table, buffers, out = prepare(target, case, device)
    check_twins(PREPARE_CALL, out, device, buffers, table)


@given(sizes=dummy_sizes())
@production_dummy_sizes
def test_make_dummy_device_twins(target, device, sizes):
    num_reqs, num_tokens, _ = sizes
    call = f"make_dummy({num_reqs}, {num_tokens}, buffers)"
    buffers = target.InputBuffers(num_reqs, num_tokens, device)
    check_twins(call, target.make_dummy(num_reqs, num_tokens, buffers), device, buffers)


@pytest.mark.needs("pcp")
@given(case=pcp_cases())
@every_world_size
def test_partition_batch_device_twins(target, case, device):
    """Also: a local batch's fresh arrays share no memory with the global batch's."""
    global_batch, ranks = partition_ranks(target, case, device)
    global_arrays = extents({f"global batch {k}": v for k, v in batch_arrays(global_batch).items()})
    for rank, (out, buffers) in enumerate(ranks):
        check_twins(partition_call(case, rank), out, device, buffers, others=global_arrays)


@given(
    calls=st.lists(st.one_of(batch_cases(), dummy_sizes()), min_size=2, max_size=3).filter(
        lambda calls: any(isinstance(c, BatchCase) for c in calls)
    )
)
def test_calls_in_flight_keep_their_own_data(target, device, calls):
    """Several calls before one read, as in a step (and as asynchronous scheduling
    prepares the next step while the last one runs): prepare_inputs and make_dummy
    into the same buffers, each call's results read by the device in stream order (its
    model forward, queued before the next call), no synchronize until the last call.
    Each read equals its call's host twins, though later calls have staged and copied
    their own data meanwhile: a staging buffer a later call refills before an earlier
    call's copy has run shows here."""
    buffers = target.InputBuffers(
        max(_capacity(c)[0] for c in calls), max(_capacity(c)[1] for c in calls), device
    )
    reads = []
    for i, c in enumerate(calls):
        if isinstance(c, BatchCase):
            call = PREPARE_CALL
            out = target.prepare_inputs(
                c.batch(), c.build_table(target), buffers, c.decode_query_len
            )
        else:
            call = f"make_dummy({c[0]}, {c[1]}, buffers)"
            out = target.make_dummy(c[0], c[1], buffers)
        reads.append(
            (f"call {i + 1} of {len(calls)} before one read, {call}", read_in_stream_order(out))
        )
    synchronize(device)
    with every_failure():
        for call, read in reads:
            _check_twins(call, read, device, layout=False)


def _capacity(call: BatchCase | tuple[int, int, int | None]) -> tuple[int, int]:
    if isinstance(call, BatchCase):
        return call.max_num_reqs, call.max_num_tokens
    return call[0], call[1]


@given(case=batch_cases())
@production_examples
def test_device_gathers_equal_host_gathers(target, case, device):
    """Indexing the slot state with idx_mapping on the device (advanced indexing and
    index_select) gives what idx_mapping_np gives on the host."""
    table, _, out = prepare(target, case, device)
    with every_failure():
        _check_device_gathers(table, out, device)


def _check_device_gathers(table, out, device: str) -> None:
    for name in TABLE_ARRAYS:
        host = np.asarray(getattr(table, name))
        on_device = torch.from_numpy(host).to(device)
        expected = host[out.idx_mapping_np]
        assert_values(
            PREPARE_CALL,
            f"{name}[idx_mapping] on {device} vs host",
            on_device[out.idx_mapping],
            expected,
        )
        assert_values(
            PREPARE_CALL,
            f"index_select({name}, idx_mapping) on {device} vs host",
            torch.index_select(on_device, 0, out.idx_mapping),
            expected,
        )


@given(x=copy_sources, as_tensor=st.booleans(), into_out=st.booleans())
def test_async_copy_to_gpu_is_a_snapshot(target, device, x, as_tensor, into_out):
    """Equal to x once synchronised, not aliasing it, returns out when given."""
    src = torch.from_numpy(x.copy()) if as_tensor else x.copy()
    call = (
        f"async_copy_to_gpu(x{' as a CPU tensor' if as_tensor else ''}, "
        f"{'out=out' if into_out else f'device={device!r}'})"
    )
    dtype = torch.from_numpy(x).dtype
    out = torch.empty(x.shape, dtype=dtype, device=device) if into_out else None
    result = (
        target.async_copy_to_gpu(src, out=out)
        if into_out
        else target.async_copy_to_gpu(src, device=device)
    )
    if into_out:
        assert_same_object(call, "result", result, "out", out)
    synchronize(device)
    assert_device_tensor(call, "result", result, dtype, device, x.shape)
    assert_values(call, "result", result, x)
    assert_no_shared_memory(call, "result", result, src)
    # Overwrite the source: a snapshot does not follow it.
    if isinstance(src, torch.Tensor):
        src.copy_(torch.from_numpy(~x if x.dtype == np.bool_ else x + 1))
    else:
        src[...] = ~x if x.dtype == np.bool_ else x + 1
    synchronize(device)
    assert_values(call + " after writing to x", "result", result, x)
