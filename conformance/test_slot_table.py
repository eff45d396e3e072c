"""Family `slot_table`: LIFO slots, int32 per-slot state, full-table and unknown-id
removal semantics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mrv2_conformance.conformance import state
from mrv2_conformance.conformance.assertions import (
    assert_equal,
    assert_host_array,
    assert_raises,
    assert_values,
)
from mrv2_conformance.conformance.fields import TABLE_ARRAYS
from mrv2_conformance.strategies import request_ids, slot_histories

pytestmark = pytest.mark.slot_table


@given(history=slot_histories(min_live=0))
def test_slots_follow_the_lifo_free_list(target, history):
    """Replaying a history gives exactly the slots a LIFO free list
    [0 .. max_num_reqs-1] hands out, and each live slot holds its request's state."""
    table = target.SlotTable(history.max_num_reqs)
    free = list(range(history.max_num_reqs))
    expected: dict[str, int] = {}
    for i, (op, req_id, prefill_len, computed) in enumerate(history.ops):
        call = f"op {i}: {op}_request({req_id!r})"
        if op == "add":
            slot = table.add_request(req_id, prefill_len, computed)
            expected[req_id] = free.pop()
            assert_equal(call, "returned slot", int(slot), expected[req_id])
        else:
            slot = table.remove_request(req_id)
            free.append(expected.pop(req_id))
            assert_equal(call, "returned slot", int(slot), free[-1])
    assert_equal("after the history", "req_id_to_index", dict(table.req_id_to_index), expected)
    for name in TABLE_ARRAYS:
        assert_host_array("SlotTable", name, getattr(table, name), np.int32,
                          (history.max_num_reqs,))
    slots = np.array(list(expected.values()), dtype=np.intp)
    prefill = np.array([history.live[r][0] for r in expected], dtype=np.int64)
    computed = np.array([history.live[r][1] for r in expected], dtype=np.int64)
    assert_values("after the history", "prefill_len[live slots]",
                  np.asarray(table.prefill_len)[slots], prefill)
    assert_values("after the history", "num_computed_tokens[live slots]",
                  np.asarray(table.num_computed_tokens)[slots], computed)
    assert_values("after the history", "num_computed_prefill_tokens[live slots]",
                  np.asarray(table.num_computed_prefill_tokens)[slots],
                  np.minimum(computed, prefill))


@given(max_num_reqs=st.integers(1, 8), ids=st.lists(request_ids(), min_size=9, max_size=9,
                                                     unique=True))
def test_adding_to_a_full_table_is_an_error_and_changes_nothing(target, max_num_reqs, ids):
    table = target.SlotTable(max_num_reqs)
    for req_id in ids[:max_num_reqs]:
        table.add_request(req_id, 4, 0)
    before = state.snapshot({"table": table})
    call = f"SlotTable({max_num_reqs}) full, add_request({ids[-1]!r}, 4, 0)"
    # The reference's error type (the CONTRACT names only "an error"), like the PCP
    # capacity errors: exactly RuntimeError naming the capacity, not whatever a
    # bare list.pop() or an assert happens to raise.
    assert_raises(call, RuntimeError, table.add_request, ids[-1], 4, 0,
                  match=lambda e: None if str(max_num_reqs) in str(e) else
                  f"does not name the capacity {max_num_reqs}")
    state.assert_unchanged(call, before, {"table": table})


@given(history=slot_histories(min_live=0), unknown=request_ids())
def test_removing_an_unknown_id_returns_none_and_changes_nothing(target, history, unknown):
    table = history.build(target)
    if unknown in history.live:
        unknown = unknown + "\x00unknown"
    before = state.snapshot({"table": table})
    call = f"remove_request({unknown!r})"
    assert_equal(call, "result", table.remove_request(unknown), None)
    state.assert_unchanged(call, before, {"table": table})
