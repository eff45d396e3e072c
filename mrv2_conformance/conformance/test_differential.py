"""Family `differential`: the target and the reference (``impl``) on the same input
give the same outcome - the same values, dtypes, shapes, order, and the same errors.

Where the other families check the CONTRACT's rules one by one, this one catches any
difference at all, including in fields no rule names. It skips when the target is
the reference itself.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mrv2_conformance.conformance.build import (
    GATHER_CALL,
    PREPARE_CALL,
    local_buffers,
    partition_call,
    synchronize,
)
from mrv2_conformance.conformance.differential import (
    REFERENCE,
    Outcome,
    assert_same_field,
    assert_same_fields,
    assert_same_outcome,
    reference_target,
    run,
)
from mrv2_conformance.conformance.fields import ARRAY_FIELDS, SCALAR_FIELDS, TABLE_ARRAYS
from mrv2_conformance.conformance.target import Target
from mrv2_conformance.strategies import (
    production_examples,
    BatchCase,
    batch_cases,
    copy_sources,
    dummy_sizes,
    every_world_size,
    missing_id_cases,
    pcp_cases,
    slot_histories,
    sort_cases,
)

pytestmark = pytest.mark.differential

# Arrays first: their dtypes are what the contract is about.
BATCH_FIELDS = [*(f.name for f in ARRAY_FIELDS), *SCALAR_FIELDS]
GATHER_FIELDS = [
    "req_ids",
    "num_scheduled_tokens",
    "idx_mapping_np",
    "prefill_len_np",
    "num_computed_prefill_tokens_np",
    "is_prefilling_np",
    "has_prefill",
]
LOCAL_FIELDS = [*BATCH_FIELDS, "local_to_global_batch_req_idx_np"]


@pytest.fixture(scope="module")
def reference(target: Target) -> Target:
    if target.name == REFERENCE:
        pytest.skip("the target is the reference: nothing to compare")
    return reference_target(target.revision)


batches_and_missing_ids = st.one_of(batch_cases(), missing_id_cases())


@given(case=st.one_of(sort_cases(), batch_cases(kinds=("spec_decode", "mixed"))))
def test_sort_matches_reference(target, reference, case):
    num = case.num_scheduled_tokens if isinstance(case, BatchCase) else case.num_tokens_per_req
    drafts = case.draft_tokens
    call = f"sort_batch_req_ids({num!r}, {drafts!r}, {case.decode_query_len})"
    ref, got = (
        run(
            t.sort_batch_req_ids,
            dict(num),
            {k: list(v) for k, v in drafts.items()},
            case.decode_query_len,
        )
        for t in (reference, target)
    )
    if not assert_same_outcome(call, ref, got):
        assert_same_field(call, "order", ref.value, got.value)


@given(history=slot_histories(min_live=0))
def test_slot_table_matches_reference(target, reference, history):
    """The same history gives the same slot at every step and the same live state."""
    tables = [t.SlotTable(history.max_num_reqs) for t in (reference, target)]
    for i, (op, req_id, prefill_len, computed) in enumerate(history.ops):
        call = f"op {i}: {op}_request({req_id!r})"
        args = (req_id, prefill_len, computed) if op == "add" else (req_id,)
        ref, got = (run(getattr(table, f"{op}_request"), *args) for table in tables)
        if not assert_same_outcome(call, ref, got):
            assert_same_field(call, "returned slot", ref.value, got.value)
    ref_table, table = tables
    assert_same_field(
        "after the history",
        "req_id_to_index",
        dict(ref_table.req_id_to_index),
        dict(table.req_id_to_index),
    )
    live = np.array(sorted(ref_table.req_id_to_index.values()), dtype=np.intp)
    for name in TABLE_ARRAYS:
        assert_same_field(
            "after the history",
            f"{name}[live slots]",
            np.asarray(getattr(ref_table, name))[live],
            np.asarray(getattr(table, name))[live],
        )


@given(case=batches_and_missing_ids)
@production_examples
def test_gather_matches_reference(target, reference, case):
    ref, got = (
        run(t.gather_batch_req_state, case.batch(), case.build_table(t), case.decode_query_len)
        for t in (reference, target)
    )
    if not assert_same_outcome(GATHER_CALL, ref, got, case.missing_ids):
        assert_same_fields(GATHER_CALL, ref.value, got.value, GATHER_FIELDS)


def _prepare(t: Target, case: BatchCase, device: str) -> Outcome:
    buffers = t.InputBuffers(case.max_num_reqs, case.max_num_tokens, device)
    return run(t.prepare_inputs, case.batch(), case.build_table(t), buffers, case.decode_query_len)


@given(case=batches_and_missing_ids)
@production_examples
def test_prepare_inputs_matches_reference(target, reference, case, device):
    ref, got = _prepare(reference, case, device), _prepare(target, case, device)
    synchronize(device)
    if not assert_same_outcome(PREPARE_CALL, ref, got, case.missing_ids):
        assert_same_fields(PREPARE_CALL, ref.value, got.value, BATCH_FIELDS)


@given(sizes=dummy_sizes())
def test_make_dummy_matches_reference(target, reference, sizes, device):
    """Every field but the (made-up) request ids, of which only the count matters."""
    num_reqs, num_tokens, max_query_len = sizes
    call = f"make_dummy({num_reqs}, {num_tokens}, buffers, max_query_len={max_query_len})"
    ref, got = (
        run(
            t.make_dummy,
            num_reqs,
            num_tokens,
            t.InputBuffers(num_reqs, num_tokens, device),
            max_query_len,
        )
        for t in (reference, target)
    )
    synchronize(device)
    if not assert_same_outcome(call, ref, got):
        assert_same_field(call, "len(req_ids)", len(ref.value.req_ids), len(got.value.req_ids))
        assert_same_fields(call, ref.value, got.value, [f for f in BATCH_FIELDS if f != "req_ids"])


@given(x=copy_sources)
def test_async_copy_matches_reference(target, reference, x, device):
    call = f"async_copy_to_gpu(x, device={device!r})"
    ref, got = (run(t.async_copy_to_gpu, x.copy(), device=device) for t in (reference, target))
    synchronize(device)
    if not assert_same_outcome(call, ref, got):
        assert_same_field(call, "result", ref.value, got.value)


@pytest.mark.needs("pcp")
@given(case=pcp_cases())
@every_world_size
def test_partition_matches_reference(target, reference, case, device):
    """Every rank's local batch and the layout (segments, padding, restore index)."""
    globals_ = [_prepare(t, case.batch_case, device).value for t in (reference, target)]
    for rank in range(case.world_size):
        call = partition_call(case, rank)
        ref, got = (
            run(t.partition_batch, g, case.world_size, rank, local_buffers(t, case, device))
            for t, g in zip((reference, target), globals_, strict=False)
        )
        synchronize(device)
        if not assert_same_outcome(call, ref, got):
            assert_same_fields(call, ref.value, got.value, LOCAL_FIELDS)
    call = f"build_pcp_layout(global_batch, {case.world_size})"
    ref, got = (
        run(t.build_pcp_layout, g, case.world_size)
        for t, g in zip((reference, target), globals_, strict=False)
    )
    if not assert_same_outcome(call, ref, got):
        assert_same_field(
            call,
            "segments_by_rank (global row, global start, tokens, start pos)",
            _segments(ref.value),
            _segments(got.value),
        )
        assert_same_fields(
            call,
            ref.value,
            got.value,
            ["per_rank_num_tokens", "padded_num_tokens", "hidden_restore_idx"],
        )


def _segments(layout) -> list[list[tuple[int, int, int, int]]]:
    return [
        [
            (int(s.global_req_idx), int(s.global_start), int(s.num_tokens), int(s.start_pos))
            for s in rank
        ]
        for rank in layout.segments_by_rank
    ]
