"""Meta-tests of the strategies: every generated case is valid input, and every kind
the suite promises is actually reached."""

from __future__ import annotations

from collections import Counter

from hypothesis import find, given, settings
from mrv2_conformance.strategies import (
    batch_cases,
    missing_id_cases,
    pcp_cases,
    request_ids,
    slot_histories,
)
from mrv2_conformance.strategies.batches import BATCH_KINDS
from mrv2_conformance.tests import reach

from mrv2_conformance import impl


@given(history=slot_histories(min_live=0))
def test_histories_replay_on_the_reference(history):
    table = history.build(impl)
    assert set(table.req_id_to_index) == set(history.live)
    assert not set(history.removed) & set(history.live)
    assert len(history.live) <= history.max_num_reqs


@given(case=batch_cases())
def test_batches_are_valid_scheduler_steps(case):
    table = case.build_table(impl)
    assert 1 <= len(case.num_scheduled_tokens) <= case.max_num_reqs
    assert case.num_tokens <= case.max_num_tokens
    for req_id, n in case.num_scheduled_tokens.items():
        assert req_id in table.req_id_to_index
        prefill_len, computed = case.history.live[req_id]
        drafts = case.draft_tokens.get(req_id) or []
        assert n >= 1 + len(drafts)
        if computed < prefill_len:
            assert n <= prefill_len - computed and not drafts, "prefill chunk past its prompt"
        else:
            assert n <= case.decode_query_len, "decode with more tokens than decode_query_len"
    # The batch passes the reference's own validation.
    impl.prepare_inputs(
        case.batch(),
        table,
        impl.InputBuffers(case.max_num_reqs, case.max_num_tokens, "cpu"),
        case.decode_query_len,
    )


@given(case=missing_id_cases())
def test_missing_id_cases_miss_exactly_the_named_ids(case):
    table = case.build_table(impl)
    missing = {r for r in case.num_scheduled_tokens if r not in table.req_id_to_index}
    assert missing == set(case.missing_ids) and len(case.missing_ids) >= 1
    assert len(case.num_scheduled_tokens) <= case.max_num_reqs
    assert case.num_tokens <= case.max_num_tokens


@given(case=pcp_cases())
def test_pcp_cases_have_no_drafts(case):
    assert 1 <= case.world_size <= 8
    assert len(case.batch_case.num_scheduled_tokens) <= case.batch_case.max_num_reqs
    batch = case.batch_case
    assert not any(batch.draft_tokens.get(r) for r in batch.num_scheduled_tokens)


def test_every_promised_kind_is_reached():
    cases = reach.collect(batch_cases(), 300)
    kinds = Counter(c.kind for c in cases)
    assert set(kinds) == set(BATCH_KINDS), kinds
    assert any(len(c.num_scheduled_tokens) == 1 for c in cases)
    assert any(len(c.num_scheduled_tokens) == c.max_num_reqs >= 4 for c in cases), (
        "full batches (num_reqs == max_num_reqs) are never generated"
    )
    assert any(c.decode_query_len > 1 and c.draft_tokens for c in cases)
    assert any(c.history.removed for c in cases), "no history frees a slot"
    # Holes: a live batch whose slots are not 0..n-1 contiguous from the top.
    assert any(
        set(c.build_table(impl).req_id_to_index.values())
        != set(range(c.max_num_reqs - len(c.history.live), c.max_num_reqs))
        for c in cases
    )
    worlds = Counter(c.world_size for c in reach.collect(pcp_cases(), 300))
    assert set(worlds) == set(range(1, 9)), worlds
    missing = reach.collect(missing_id_cases(), 300)
    assert any(set(c.missing_ids) & set(c.history.removed) for c in missing)


def test_request_ids_are_realistic_and_arbitrary():
    ids = reach.collect(request_ids(), 200)
    assert any(i.startswith("cmpl-") for i in ids)
    assert any(not i.isascii() for i in ids)
    assert "" in ids or any(len(i) <= 1 for i in ids)


def test_cases_shrink_to_one_request():
    """A property that fails on any batch shrinks to a minimal one."""
    smallest = find(batch_cases(), lambda c: True, settings=settings(database=None))
    assert len(smallest.num_scheduled_tokens) == 1
    assert len(smallest.history.ops) == 1


def test_max_batch_requests_bounds_every_drawn_batch():
    """--max-batch-requests: no drawn batch and no explicit example schedules more
    requests; at the default, the full production tables are explicit examples."""
    from mrv2_conformance.strategies import limits
    from mrv2_conformance.strategies.batches import FULL_TABLES, production_cases

    before = limits.max_batch_requests()
    try:
        limits.configure_batches(64)
        assert max(len(c.num_scheduled_tokens) for c in production_cases()) <= 64

        @settings(max_examples=300, derandomize=True, database=None)
        @given(case=batch_cases())
        def bounded(case):
            assert len(case.num_scheduled_tokens) <= 64

        bounded()
        limits.configure_batches(limits.MAX_BATCH_REQUESTS)
        sizes = {len(c.num_scheduled_tokens) for c in production_cases()}
        assert sizes >= set(FULL_TABLES)
        # Random draws fill production tables too, not only the explicit examples.
        find(batch_cases(), lambda c: len(c.num_scheduled_tokens) > 512)
    finally:
        limits.configure_batches(before)


def test_a_bad_max_batch_requests_is_a_usage_error():
    from mrv2_conformance.tests.helpers import run_suite

    proc = run_suite("mrv2_conformance/conformance/test_ordering.py", "--max-batch-requests", "0")
    assert proc.returncode == 4, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "--max-batch-requests must be a positive int, got 0" in proc.stderr
