"""Family `aliasing`: which arrays of an input batch are views of the persistent
buffers and which are fresh (CONTRACT, Clarifications: Aliasing), for real and dummy batches alike.

Checked two ways on two batches built one after the other into the same buffers (real
then dummy, dummy then real, ...): directly on the first (memory extents: views lie in an
input buffer; fresh arrays share memory with no buffer, slot-table array, other field
or host/device twin: conformance/aliasing.py), and by behaviour (the first batch's
fresh arrays keep their bytes, its views follow the buffers). The device_host family
runs the direct check on every real, dummy and PCP batch it builds; here it runs on the
first batch.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mrv2_conformance.conformance import state
from mrv2_conformance.conformance.aliasing import batch_arrays, check_batch_aliasing
from mrv2_conformance.conformance.assertions import (
    assert_values,
    every_failure,
    fail,
    shares_memory,
)
from mrv2_conformance.conformance.build import synchronize
from mrv2_conformance.conformance.fields import ARRAY_FIELDS
from mrv2_conformance.strategies import batch_cases, dummy_sizes

pytestmark = pytest.mark.aliasing


# One step built into shared buffers: a real batch (with its own slot table) or a dummy.
steps = st.one_of(
    batch_cases().map(lambda c: ("real", c)), dummy_sizes().map(lambda s: ("dummy", s))
)


def _needs(step: tuple[str, Any]) -> tuple[int, int]:
    kind, arg = step
    return (arg.max_num_reqs, arg.max_num_tokens) if kind == "real" else (arg[0], arg[1])


def _build(target, step: tuple[str, Any], buffers) -> tuple[Any, Any]:
    """(the batch, its slot table or None)."""
    kind, arg = step
    if kind == "real":
        table = arg.build_table(target)
        return target.prepare_inputs(arg.batch(), table, buffers, arg.decode_query_len), table
    return target.make_dummy(arg[0], arg[1], buffers, arg[2]), None


@given(first=steps, second=steps)
def test_reused_buffers_keep_fresh_arrays_and_move_views(target, device, first, second):
    reqs, tokens = (max(a, b) for a, b in zip(_needs(first), _needs(second), strict=False))
    call = f"a {first[0]} batch, then a {second[0]} batch into the same buffers"
    buffers = target.InputBuffers(reqs, tokens, device)
    a, table_a = _build(target, first, buffers)
    synchronize(device)
    with every_failure():
        check_batch_aliasing(f"the first ({first[0]}) batch", a, buffers, table_a)
    views = {f.name for f in ARRAY_FIELDS if f.view}
    fresh = {k: v for k, v in batch_arrays(a).items() if k not in views}
    before = state.snapshot({"first batch": fresh})
    b, _ = _build(target, second, buffers)
    synchronize(device)
    b_arrays = batch_arrays(b)
    with every_failure():
        # Fresh arrays are the first batch's own: the second one changes no byte.
        state.assert_unchanged(call, before, {"first batch": fresh})
        for name, value in fresh.items():
            shared = [o for o, other in b_arrays.items() if shares_memory(value, other)]
            if shared:
                fail(
                    f"{call}: the first batch's {name} shares memory with the second "
                    f"batch's {', '.join(shared)} (it must be fresh)"
                )
        # Views follow the buffer: the first batch's view now shows the second's values.
        for name in views & b_arrays.keys() & batch_arrays(a).keys():
            av, bv = getattr(a, name), getattr(b, name)
            if not shares_memory(av, bv):
                fail(
                    f"{call}: the first batch's {name} does not share memory with the "
                    f"second's (a view of the persistent buffer must follow it)"
                )
                continue
            k = min(len(av), len(bv))
            assert_values(call, f"first batch's {name}[:{k}] vs second batch's", av[:k], bv[:k])
