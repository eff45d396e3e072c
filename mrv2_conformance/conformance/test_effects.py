"""Family `effects`: what each function reads and may change (docs/CONTRACT.md, "What
each function reads and changes").

Every call that any property makes through the target checks the function's clause
(``conformance/effects.py``: an argument it only reads is compared before and after,
container by container). The properties here call every function on the inputs that
reach the most of its arguments - a step with finished, new and running requests and
drafts, a global batch partitioned on every rank - and check in the end, once more
and explicitly, that the step and the global batch are as they were. They also check
the other side of the clause: a returned batch keeps its values while the same table
and buffers serve the next calls.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from mrv2_conformance.conformance.budget import share
from mrv2_conformance.conformance.build import synchronize
from mrv2_conformance.conformance.effects import change_since_held, hold
from mrv2_conformance.conformance.frozen import difference, freeze
from mrv2_conformance.strategies import copy_sources, dummy_sizes, sort_cases
from mrv2_conformance.strategies.steps import StepCase, step_cases

pytestmark = pytest.mark.effects

WORLD = 2  # the ranks a draft-free step is partitioned on
# A third of the profile's examples: every other property checks these clauses on each
# call too; these add the inputs that reach every argument.
third_budget = share(3)


def _changed(label: str, before, value) -> None:
    change = difference(before, freeze(value), label)
    assert change is None, (
        f"after update_states, sort_batch_req_ids, gather_batch_req_state, prepare_inputs "
        f"and partition_batch: {change} (every function only reads it)"
    )


@third_budget
@given(case=step_cases(shapes=("within capacity",)))
def test_a_step_and_a_global_batch_are_only_read(target, device, case: StepCase):
    step = case.step()
    before = freeze(step)
    table = case.build_table(target)
    buffers = target.InputBuffers(
        max(case.max_num_reqs, len(case.num_scheduled_tokens)), case.max_num_tokens, device
    )
    dql = case.decode_query_len
    target.update_states(step, table)
    target.sort_batch_req_ids(step.num_scheduled_tokens, step.scheduled_spec_decode_tokens, dql)
    target.gather_batch_req_state(step, table, dql)
    batch = target.prepare_inputs(step, table, buffers, dql)
    synchronize(device)
    if batch.num_draft_tokens == 0 and target.allows("pcp"):
        global_before = freeze(batch)
        for rank in range(WORLD):
            local = target.InputBuffers(2 * buffers.max_num_reqs, case.max_num_tokens, device)
            target.partition_batch(batch, WORLD, rank, local)
        target.build_pcp_layout(batch, WORLD)
        synchronize(device)
        _changed("global_batch", global_before, batch)
    _changed("step", before, step)


@third_budget
@given(case=step_cases(shapes=("within capacity",)), sizes=dummy_sizes())
def test_a_batch_keeps_its_values_while_the_buffers_serve_on(target, device, case, sizes):
    """A dummy batch and the same step again, built into the same table and buffers
    after it, change no value of the first batch but its views of the buffers."""
    num_reqs, num_tokens, max_query_len = sizes
    table = case.build_table(target)
    buffers = target.InputBuffers(
        max(case.max_num_reqs, len(case.num_scheduled_tokens), num_reqs),
        max(case.max_num_tokens, num_tokens),
        device,
    )
    dql = case.decode_query_len
    target.update_states(case.step(), table)
    first = target.prepare_inputs(case.step(), table, buffers, dql)
    synchronize(device)
    held = hold("the first batch", first, buffers)
    target.make_dummy(num_reqs, num_tokens, buffers, max_query_len)
    target.prepare_inputs(case.step(), table, buffers, dql)
    synchronize(device)
    change = change_since_held(held)
    assert change is None, f"a dummy batch, then prepare_inputs again: {change}"


@third_budget
@given(x=copy_sources, case=sort_cases())
def test_a_copy_and_a_sort_read_only_their_arguments(target, device, x, case):
    source = x.copy()
    target.async_copy_to_gpu(source, device=device)
    synchronize(device)
    assert (source == x).all() and source.dtype == x.dtype, (
        f"async_copy_to_gpu(x, device={device!r}) changed x: {x!r} -> {source!r}"
    )
    num, drafts = dict(case.num_tokens_per_req), copy.deepcopy(case.draft_tokens)
    before = freeze((num, drafts))
    target.sort_batch_req_ids(num, drafts, case.decode_query_len)
    change = difference(before, freeze((num, drafts)), "(num_tokens_per_req, draft_tokens)")
    assert change is None, f"sort_batch_req_ids changed its arguments: {change}"
