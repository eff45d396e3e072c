"""Family `dummy_parity`: F2, the dummy batch and its parity with a real batch."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from mrv2_conformance.conformance import oracle, state
from mrv2_conformance.conformance.assertions import (
    assert_equal,
    assert_raises,
    assert_same_object,
    assert_values,
    every_failure,
    fail,
)
from mrv2_conformance.conformance.build import PREPARE_CALL, prepare, synchronize
from mrv2_conformance.conformance.fields import ARRAY_FIELDS, SCALAR_FIELDS, describe_field
from mrv2_conformance.strategies import (
    batch_cases,
    dummy_sizes,
    production_dummy_sizes,
    production_examples,
)

pytestmark = pytest.mark.dummy_parity

NO_DRAFTS = ("decode", "prefill", "mixed")


def _fields(batch) -> list[str]:
    if dataclasses.is_dataclass(batch):
        return [f.name for f in dataclasses.fields(batch)]
    return sorted(vars(batch))


@given(sizes=dummy_sizes())
@example(sizes=(2, 2, 1))  # max_query_len=1 is valid when every request has one token
@production_dummy_sizes
def test_make_dummy_values(target, device, sizes):
    num_reqs, num_tokens, max_query_len = sizes
    call = f"make_dummy({num_reqs}, {num_tokens}, buffers, max_query_len={max_query_len})"
    buffers = target.InputBuffers(num_reqs, num_tokens, device)
    out = target.make_dummy(num_reqs, num_tokens, buffers, max_query_len)
    synchronize(device)
    with every_failure():
        _check_dummy_values(call, out, num_reqs, num_tokens, max_query_len)


def _check_dummy_values(call, out, num_reqs, num_tokens, max_query_len) -> None:
    split = oracle.even_split(num_reqs, num_tokens)
    qsl = oracle.query_start_loc(split)
    assert_equal(call, "num_reqs", out.num_reqs, num_reqs)
    assert_equal(call, "num_tokens", out.num_tokens, num_tokens)
    assert_equal(call, "len(req_ids)", len(out.req_ids), num_reqs)
    assert_values(call, "num_scheduled_tokens", out.num_scheduled_tokens, split)
    if max_query_len is not None and max(out.num_scheduled_tokens) > max_query_len:
        fail(f"{call}: a request has {max(out.num_scheduled_tokens)} tokens > max_query_len")
    assert_values(call, "idx_mapping_np", out.idx_mapping_np, np.arange(num_reqs))
    assert_values(call, "idx_mapping", out.idx_mapping, np.arange(num_reqs))
    assert_same_object(
        call, "expanded_idx_mapping", out.expanded_idx_mapping, "idx_mapping", out.idx_mapping
    )
    assert_values(call, "expanded_local_pos", out.expanded_local_pos, np.zeros(num_reqs))
    assert_values(call, "seq_lens", out.seq_lens, split)
    assert_values(call, "query_start_loc_np", out.query_start_loc_np, qsl)
    assert_values(call, "query_start_loc", out.query_start_loc, qsl)
    assert_values(call, "is_prefilling_np", out.is_prefilling_np, np.zeros(num_reqs, bool))
    assert_equal(call, "has_prefill", out.has_prefill, False)
    assert_values(call, "logits_indices", out.logits_indices, qsl[1:] - 1)
    assert_values(call, "cu_num_logits_np", out.cu_num_logits_np, np.arange(num_reqs + 1))


bad_sizes = st.one_of(
    st.tuples(st.integers(-3, 0), st.integers(-3, 12)),
    st.integers(1, 12).flatmap(lambda r: st.tuples(st.just(r), st.integers(-3, r - 1))),
)


@given(sizes=bad_sizes)
def test_make_dummy_rejects_bad_sizes(target, sizes):
    """0 < num_reqs <= num_tokens, else ValueError naming both numbers."""
    num_reqs, num_tokens = sizes
    call = f"make_dummy({num_reqs}, {num_tokens}, buffers)"
    buffers = target.InputBuffers(16, 16, "cpu")
    assert_raises(
        call,
        ValueError,
        target.make_dummy,
        num_reqs,
        num_tokens,
        buffers,
        match=lambda e: (
            None
            if str(num_reqs) in str(e) and str(num_tokens) in str(e)
            else "does not name both numbers"
        ),
    )


@pytest.mark.needs("max_query_len")
@given(num_reqs=st.integers(1, 8), extra=st.integers(1, 40), data=st.data())
def test_make_dummy_rejects_a_query_over_max_query_len(target, num_reqs, extra, data):
    """No dummy request may exceed max_query_len: an even split that would is refused."""
    num_tokens = num_reqs + extra
    longest = -(-num_tokens // num_reqs)
    max_query_len = data.draw(st.integers(1, longest - 1), label="max_query_len")
    call = f"make_dummy({num_reqs}, {num_tokens}, buffers, max_query_len={max_query_len})"
    buffers = target.InputBuffers(num_reqs, num_tokens, "cpu")
    assert_raises(
        call,
        ValueError,
        target.make_dummy,
        num_reqs,
        num_tokens,
        buffers,
        max_query_len,
        match=lambda e: None if str(max_query_len) in str(e) else "does not name max_query_len",
    )


@given(case=batch_cases(), sizes=dummy_sizes())
def test_make_dummy_touches_no_slot_table(target, device, case, sizes):
    """A dummy run changes no request state, even right after a real step."""
    num_reqs, num_tokens, max_query_len = sizes
    table, _, _ = prepare(target, case, device)
    before = state.snapshot({"table": table})
    buffers = target.InputBuffers(num_reqs, num_tokens, device)
    target.make_dummy(num_reqs, num_tokens, buffers, max_query_len)
    state.assert_unchanged(
        f"make_dummy({num_reqs}, {num_tokens}, buffers)", before, {"table": table}
    )


@given(case=batch_cases(kinds=NO_DRAFTS))
@production_examples
def test_dummy_and_real_batches_have_the_same_form(target, device, case):
    """Same fields; per field the same type, dtype, device, rank and shape; same aliasing."""
    _, _, real = prepare(target, case, device)
    buffers = target.InputBuffers(case.max_num_reqs, case.max_num_tokens, device)
    dummy = target.make_dummy(real.num_reqs, real.num_tokens, buffers)
    call = f"make_dummy({real.num_reqs}, {real.num_tokens}, buffers) vs {PREPARE_CALL}"
    with every_failure():
        assert_equal(call, "field names", _fields(dummy), _fields(real))
        for name in [*SCALAR_FIELDS, *(f.name for f in ARRAY_FIELDS)]:
            d, r = describe_field(getattr(dummy, name)), describe_field(getattr(real, name))
            if d != r:
                fail(
                    f"{call}: field {name} differs in form: dummy is {d}, real is {r} "
                    f"(type, dtype, device, rank, shape)"
                )
        if (dummy.expanded_idx_mapping is dummy.idx_mapping) != (
            real.expanded_idx_mapping is real.idx_mapping
        ):
            fail(f"{call}: expanded_idx_mapping aliases idx_mapping in one batch but not the other")


@given(case=batch_cases(), sizes=dummy_sizes())
def test_real_batch_after_dummy_equals_fresh_real_batch(target, device, case, sizes):
    """No stale buffer contents leak from a dummy into the next real batch."""
    num_reqs, num_tokens, max_query_len = sizes
    fresh = prepare(target, case, device)[2]
    buffers = target.InputBuffers(
        max(num_reqs, case.max_num_reqs), max(num_tokens, case.max_num_tokens), device
    )
    target.make_dummy(num_reqs, num_tokens, buffers, max_query_len)
    after = target.prepare_inputs(
        case.batch(), case.build_table(target), buffers, case.decode_query_len
    )
    synchronize(device)
    call = f"{PREPARE_CALL} after make_dummy({num_reqs}, {num_tokens})"
    with every_failure():
        for name in SCALAR_FIELDS:
            assert_equal(call, name, getattr(after, name), getattr(fresh, name))
        for f in ARRAY_FIELDS:
            assert_values(call, f.name, getattr(after, f.name), getattr(fresh, f.name))
