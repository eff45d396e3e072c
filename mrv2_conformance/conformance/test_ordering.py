"""Family `ordering`: F1.1 order and F1.2/F1.3 mapping values."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given
from mrv2_conformance.conformance import oracle
from mrv2_conformance.conformance.assertions import assert_equal, assert_values, every_failure, fail
from mrv2_conformance.conformance.build import GATHER_CALL, PREPARE_CALL, prepare, synchronize
from mrv2_conformance.strategies import production_examples, batch_cases, sort_cases

pytestmark = pytest.mark.ordering

SORT_CALL = "sort_batch_req_ids(num_tokens_per_req, draft_tokens, decode_query_len)"


@given(case=sort_cases())
def test_sort_batch_req_ids_spec_order(target, case):
    """A permutation of the batch's ids, in F1.1 order, stable on ties."""
    num, drafts = case.num_tokens_per_req, case.draft_tokens
    got = target.sort_batch_req_ids(dict(num), copy.deepcopy(drafts), case.decode_query_len)
    expected = oracle.spec_order(num, drafts, case.decode_query_len)
    if type(got) is not list:
        fail(f"{SORT_CALL}: must return a list, got {type(got).__name__}")
    got = list(got)
    assert sorted(got) == sorted(expected), (
        f"{SORT_CALL}: not a permutation of the batch's ids: missing "
        f"{sorted(set(expected) - set(got))!r}, extra {sorted(set(got) - set(expected))!r}"
    )
    key = oracle.spec_sort_key(num, drafts, case.decode_query_len)
    for i, (g, e) in enumerate(zip(got, expected, strict=False)):
        if g != e:
            raise AssertionError(
                f"{SORT_CALL}: position {i} is {g!r} (key {key(g)}), expected {e!r} "
                f"(key {key(e)}); key = (no drafts, not a uniform decode, tokens), ties in "
                f"scheduler order\n  got:      {got!r}\n  expected: {expected!r}"
            )


@given(case=batch_cases(kinds=("spec_decode",)))
def test_sort_batch_req_ids_is_pure(target, case):
    """Reads only its arguments, changes none, ignores drafts of ids not in the batch."""
    num, drafts = dict(case.num_scheduled_tokens), copy.deepcopy(case.draft_tokens)
    got = target.sort_batch_req_ids(num, drafts, case.decode_query_len)
    assert_equal(SORT_CALL, "num_tokens_per_req after the call", num, case.num_scheduled_tokens)
    assert_equal(SORT_CALL, "draft_tokens after the call", drafts, case.draft_tokens)
    in_batch = {r: d for r, d in drafts.items() if r in num}
    again = target.sort_batch_req_ids(num, in_batch, case.decode_query_len)
    assert_equal(SORT_CALL + " without foreign draft entries", "result", again, got)


@given(case=batch_cases())
@production_examples
def test_gather_values(target, case):
    """F1.2: batch order, counts, slots and slot state gathered at those slots."""
    table = case.build_table(target)
    out = target.gather_batch_req_state(case.batch(), table, case.decode_query_len)
    order = oracle.spec_order(case.num_scheduled_tokens, case.draft_tokens, case.decode_query_len)
    with every_failure():
        _check_gathered(out, table, case, order)


def _check_gathered(out, table, case, order) -> None:
    assert_equal(GATHER_CALL, "req_ids", out.req_ids, order)
    slots = np.array([table.req_id_to_index[r] for r in order])
    assert_values(
        GATHER_CALL,
        "num_scheduled_tokens",
        out.num_scheduled_tokens,
        [case.num_scheduled_tokens[r] for r in order],
    )
    assert_values(GATHER_CALL, "idx_mapping_np", out.idx_mapping_np, slots)
    prefill_len = np.asarray(table.prefill_len)[slots]
    computed_prefill = np.asarray(table.num_computed_prefill_tokens)[slots]
    assert_values(GATHER_CALL, "prefill_len_np", out.prefill_len_np, prefill_len)
    assert_values(
        GATHER_CALL,
        "num_computed_prefill_tokens_np",
        out.num_computed_prefill_tokens_np,
        computed_prefill,
    )
    assert_values(
        GATHER_CALL, "is_prefilling_np", out.is_prefilling_np, computed_prefill < prefill_len
    )
    assert_equal(
        GATHER_CALL, "has_prefill", out.has_prefill, bool((computed_prefill < prefill_len).any())
    )


@given(case=batch_cases())
@production_examples
def test_prepare_inputs_values(target, case, device):
    """F1.3: query_start_loc, seq_lens, expanded mapping, logits indices, cu_num_logits."""
    table, _, out = prepare(target, case, device)
    synchronize(device)
    call = PREPARE_CALL
    order = oracle.spec_order(case.num_scheduled_tokens, case.draft_tokens, case.decode_query_len)
    counts = [case.num_scheduled_tokens[r] for r in order]
    drafts = [len(case.draft_tokens.get(r) or ()) for r in order]
    slots = np.array([table.req_id_to_index[r] for r in order])
    with every_failure():
        _check_prepared(out, call, order, counts, drafts, slots, table)


def _check_prepared(out, call, order, counts, drafts, slots, table) -> None:
    assert_equal(call, "req_ids", out.req_ids, order)
    assert_equal(call, "num_reqs", out.num_reqs, len(order))
    assert_equal(call, "num_tokens", out.num_tokens, sum(counts))
    assert_equal(call, "num_draft_tokens", out.num_draft_tokens, sum(drafts))
    qsl = oracle.query_start_loc(counts)
    assert_values(call, "query_start_loc_np", out.query_start_loc_np, qsl)
    assert_values(call, "query_start_loc", out.query_start_loc, qsl)
    computed = np.asarray(table.num_computed_tokens)[slots]
    assert_values(call, "num_computed_tokens_np", out.num_computed_tokens_np, computed)
    assert_values(call, "seq_lens", out.seq_lens, computed + np.array(counts))
    logits, cu, local = oracle.logits_layout(counts, drafts)
    assert_values(call, "logits_indices", out.logits_indices, logits)
    assert_values(call, "cu_num_logits_np", out.cu_num_logits_np, cu)
    assert_values(call, "cu_num_logits", out.cu_num_logits, cu)
    assert_values(call, "idx_mapping", out.idx_mapping, slots)
    if sum(drafts):
        assert_values(
            call,
            "expanded_idx_mapping",
            out.expanded_idx_mapping,
            np.repeat(slots, np.array(drafts) + 1),
        )
        assert_values(call, "expanded_local_pos", out.expanded_local_pos, local)
    else:
        assert_values(
            call, "expanded_local_pos", out.expanded_local_pos, np.zeros(len(order), dtype=np.int64)
        )
