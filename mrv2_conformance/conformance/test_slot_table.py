"""Family `slot_table`: LIFO slots, int32 per-slot state, full-table and unknown-id
removal semantics, and a step's request updates (F4: update_states)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mrv2_conformance.conformance import state
from mrv2_conformance.conformance.budget import share
from mrv2_conformance.conformance.assertions import (
    assert_equal,
    assert_host_array,
    assert_raises,
    assert_values,
    every_failure,
    fail,
)
from mrv2_conformance.conformance.fields import TABLE_ARRAYS
from mrv2_conformance.strategies import request_ids, slot_histories
from mrv2_conformance.strategies.steps import step_cases

pytestmark = pytest.mark.slot_table

# F4's properties at half the profile's examples: the stateful family applies hundreds
# of steps per run through update_states as well.
half_budget = share(2)


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
        assert_host_array(
            "SlotTable", name, getattr(table, name), np.int32, (history.max_num_reqs,)
        )
    slots = np.array(list(expected.values()), dtype=np.intp)
    prefill = np.array([history.live[r][0] for r in expected], dtype=np.int64)
    computed = np.array([history.live[r][1] for r in expected], dtype=np.int64)
    assert_values(
        "after the history",
        "prefill_len[live slots]",
        np.asarray(table.prefill_len)[slots],
        prefill,
    )
    assert_values(
        "after the history",
        "num_computed_tokens[live slots]",
        np.asarray(table.num_computed_tokens)[slots],
        computed,
    )
    assert_values(
        "after the history",
        "num_computed_prefill_tokens[live slots]",
        np.asarray(table.num_computed_prefill_tokens)[slots],
        np.minimum(computed, prefill),
    )


@given(
    max_num_reqs=st.integers(1, 8), ids=st.lists(request_ids(), min_size=9, max_size=9, unique=True)
)
def test_adding_to_a_full_table_is_an_error_and_changes_nothing(target, max_num_reqs, ids):
    table = target.SlotTable(max_num_reqs)
    for req_id in ids[:max_num_reqs]:
        table.add_request(req_id, 4, 0)
    before = state.snapshot({"table": table})
    call = f"SlotTable({max_num_reqs}) full, add_request({ids[-1]!r}, 4, 0)"
    # The reference's error type (the CONTRACT names only "an error"), like the PCP
    # capacity errors: exactly RuntimeError naming the capacity, not whatever a
    # bare list.pop() or an assert happens to raise.
    assert_raises(
        call,
        RuntimeError,
        table.add_request,
        ids[-1],
        4,
        0,
        match=lambda e: (
            None if str(max_num_reqs) in str(e) else f"does not name the capacity {max_num_reqs}"
        ),
    )
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


def _lifo_replay(history) -> tuple[dict[str, int], list[int]]:
    """(slot of each live id, the free list, last in first out) after the history."""
    free, slots = list(range(history.max_num_reqs)), {}
    for op, req_id, _, _ in history.ops:
        if op == "add":
            slots[req_id] = free.pop()
        else:
            free.append(slots.pop(req_id))
    return slots, free


@half_budget
@given(case=step_cases(shapes=("within capacity",)))
def test_update_states_applies_the_step(target, case):
    """F4: finished ids leave (unknown ones are ignored), new requests take the slots
    the free list hands out (those freed by this step first, in any order), running
    requests get their new computed tokens, and computed prefill tokens follow."""
    table = case.build_table(target)
    call = f"update_states(step, table) with {case.step()!r:.400}"
    target.update_states(case.step(), table)
    slots, free = _lifo_replay(case.history)
    freed = {slots.pop(r) for r in case.finished if r in slots}
    expected = {r: (p, c) for r, (p, c) in case.history.live.items() if r in slots}
    got = dict(table.req_id_to_index)
    with every_failure():
        pool, stack = set(freed), list(free)
        for req in case.new:
            slot = got.get(req.req_id)
            if pool:
                if slot not in pool:
                    fail(
                        f"{call}: new request {req.req_id!r} got slot {slot}; the free list "
                        f"hands out one of the slots this step freed first, {sorted(pool)}"
                    )
                pool.discard(slot)
            else:
                assert_equal(
                    call,
                    f"slot of new request {req.req_id!r} (the free list's top)",
                    slot,
                    stack.pop() if stack else None,
                )
            expected[req.req_id] = (req.prefill_len, req.num_computed_tokens)
        for req_id, computed in case.cached.items():
            expected[req_id] = (expected[req_id][0], computed)
        assert_equal(call, "live ids", sorted(got), sorted(expected))
        for name, column in (("prefill_len", 0), ("num_computed_tokens", 1)):
            ids = [r for r in expected if r in got]
            at = np.array([got[r] for r in ids], dtype=np.intp)
            assert_values(
                call,
                f"{name}[live slots]",
                np.asarray(getattr(table, name))[at],
                [expected[r][column] for r in ids],
            )
        ids = [r for r in expected if r in got]
        at = np.array([got[r] for r in ids], dtype=np.intp)
        assert_values(
            call,
            "num_computed_prefill_tokens[live slots]",
            np.asarray(table.num_computed_prefill_tokens)[at],
            [min(expected[r]) for r in ids],
        )


@half_budget
@given(case=step_cases(shapes=("past capacity", "unknown cached id")))
def test_update_states_refuses_a_step_it_cannot_apply_and_changes_nothing(target, case):
    """More new requests than free slots: RuntimeError naming both numbers; a running
    count for an id the table lacks: KeyError(req_id). Either way nothing changes."""
    table = case.build_table(target)
    before = state.snapshot({"table": table})
    call = f"update_states(step, table) with {case.step()!r:.400}"
    if case.past_capacity:
        assert_raises(
            call,
            RuntimeError,
            target.update_states,
            case.step(),
            table,
            match=lambda e: (
                None
                if str(case.max_num_reqs) in str(e)
                else f"does not name the table's {case.max_num_reqs} slots"
            ),
        )
    else:
        assert_raises(
            call,
            KeyError,
            target.update_states,
            case.step(),
            table,
            match=lambda e: (
                None
                if e.args == case.unknown_cached
                else f"args are {e.args!r}, expected {case.unknown_cached!r}"
            ),
        )
    state.assert_unchanged(call + " after it raised", before, {"table": table})
