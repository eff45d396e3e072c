"""Family `pcp`: F3 prefill context parallel partition - layout, order, coverage,
hidden-state restore round trip, placeholder ranks, capacity and argument errors."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st
from mrv2_conformance.conformance import oracle, state
from mrv2_conformance.conformance.assertions import (
    assert_equal,
    assert_rank_rows,
    assert_raises,
    assert_values,
    every_failure,
    fail,
)
from mrv2_conformance.conformance.build import partition_all, partition_call, prepare, synchronize
from mrv2_conformance.strategies import (
    batch_cases,
    every_world_size,
    pcp_cases,
    placeholder_cases,
    placeholder_examples,
)
from mrv2_conformance.strategies.pcp import WORLD_SIZES

pytestmark = [pytest.mark.pcp, pytest.mark.needs("pcp")]


def local_tokens(global_batch, out) -> tuple[np.ndarray, np.ndarray]:
    """(global row, position in request) of every local token, in local order, as two
    arrays (a production prefill chunk is tens of thousands of tokens)."""
    rows = np.asarray(out.local_to_global_batch_req_idx_np, dtype=np.int64)
    counts = np.asarray(out.num_scheduled_tokens, dtype=np.int64)
    starts = np.asarray(out.num_computed_tokens_np, dtype=np.int64)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]]) if len(counts) else counts
    within = np.arange(int(counts.sum())) - np.repeat(first, counts)
    return np.repeat(rows, counts), np.repeat(starts, counts) + within


def flat_positions(global_batch, out) -> np.ndarray:
    """Each local token's index in the global flat token order; -1 for a token that
    lies outside its request's scheduled range."""
    rows, pos = local_tokens(global_batch, out)
    ok = (rows >= 0) & (rows < global_batch.num_reqs)
    rows = np.where(ok, rows, 0)
    start = np.asarray(global_batch.num_computed_tokens_np, dtype=np.int64)[rows]
    q = np.asarray(global_batch.num_scheduled_tokens, dtype=np.int64)[rows]
    inside = ok & (pos >= start) & (pos < start + q)
    flat = np.asarray(global_batch.query_start_loc_np, dtype=np.int64)[rows] + pos - start
    return np.where(inside, flat, -1)


@given(case=pcp_cases())
@every_world_size
def test_partition_layout_matches_head_tail_pairing(target, case, device):
    """Each rank's rows are exactly the F3 segments: chunks r and 2W-1-r of every
    prefill, every decode whole, empty chunks dropped, in the declared revision's order."""
    global_batch, outs = partition_all(target, case, device)
    for rank, out in enumerate(outs):
        call = partition_call(case, rank)
        segs = oracle.rank_segments_of(global_batch, case.world_size, rank, target.revision)
        if not segs:
            continue  # placeholder: its own property
        assert_rank_rows(call, out, segs)
        assert_equal(call, "req_ids", out.req_ids, [global_batch.req_ids[s[0]] for s in segs])


_ROW_ORDER = {
    "#51210": "(impure before pure prefill, then global row, then position)",
    "0.30": "(decodes before prefills, then global row, then position)",
}


@given(case=pcp_cases())
@every_world_size
def test_partition_rows_are_in_the_revisions_order(target, case, device):
    """Whatever rows a rank has, they are sorted as the declared revision says
    (docs/CONTRACT.md, Revisions): checked on the rows themselves, apart from the
    layout, so a wrong order is named as such."""
    global_batch, outs = partition_all(target, case, device)
    revision = target.revision
    for rank, out in enumerate(outs):
        if out.num_tokens == 0:
            continue
        rows = np.asarray(out.local_to_global_batch_req_idx_np).tolist()
        starts = out.num_computed_tokens_np.tolist()
        keys = [
            oracle.pcp_row_key(revision, bool(global_batch.is_prefilling_np[g]), g, s)
            for g, s in zip(rows, starts, strict=True)
        ]
        assert keys == sorted(keys), (
            f"{partition_call(case, rank)}: local rows are not in revision {revision!r}'s "
            f"order {_ROW_ORDER[revision]}: (group, row, start) = {keys}"
        )


@given(case=pcp_cases())
@every_world_size
def test_partition_covers_every_token(target, case, device):
    """All ranks together: each prefill token exactly once, each decode on every rank."""
    global_batch, outs = partition_all(target, case, device)
    num_tokens = global_batch.num_tokens
    per_rank = []
    for rank, out in enumerate(outs):
        flat = flat_positions(global_batch, out)
        if (flat < 0).any():
            rows, pos = local_tokens(global_batch, out)
            i = int(np.flatnonzero(flat < 0)[0])
            raise AssertionError(
                f"partition_batch over {case.world_size} ranks: rank {rank} "
                f"has token {int(pos[i])} of row {int(rows[i])}, which is in "
                f"no request's scheduled tokens"
            )
        per_rank.append(np.bincount(flat, minlength=num_tokens))
    counts = np.asarray(global_batch.num_scheduled_tokens, dtype=np.int64)
    prefill = np.repeat(np.asarray(global_batch.is_prefilling_np, dtype=bool), counts)
    total = np.sum(per_rank, axis=0)
    bad = np.flatnonzero(prefill & (total != 1))
    if len(bad):
        raise AssertionError(
            f"partition_batch over {case.world_size} ranks: prefill token "
            f"{_token_name(global_batch, int(bad[0]))} is on {int(total[bad[0]])} ranks, "
            f"expected exactly 1 ({len(bad)} such tokens)"
        )
    for rank, c in enumerate(per_rank):
        bad = np.flatnonzero(~prefill & (c != 1))
        assert not len(bad), (
            f"partition_batch over {case.world_size} ranks: decode token "
            f"{_token_name(global_batch, int(bad[0]))} is {int(c[bad[0]])} times on rank "
            f"{rank}, expected once on every rank"
        )


def _token_name(global_batch, flat: int) -> str:
    qsl = np.asarray(global_batch.query_start_loc_np, dtype=np.int64)
    g = int(np.searchsorted(qsl, flat, side="right") - 1)
    pos = int(global_batch.num_computed_tokens_np[g]) + flat - int(qsl[g])
    return f"{pos} of row {g} ({global_batch.req_ids[g]!r})"


@given(case=pcp_cases())
@every_world_size
def test_hidden_restore_idx_round_trip(target, case, device):
    """Per-rank outputs, padded to num_tokens_after_padding and all-gathered, indexed by
    hidden_restore_idx give back the global token order."""
    global_batch, outs = partition_all(target, case, device)
    layout = target.build_pcp_layout(global_batch, case.world_size)
    restore = np.asarray(layout.hidden_restore_idx)
    gathered = np.concatenate(
        [
            np.concatenate(
                [
                    flat := flat_positions(global_batch, out),
                    np.full(max(0, out.num_tokens_after_padding - len(flat)), -1, dtype=np.int64),
                ]
            )
            for out in outs
        ]
    )
    call = f"build_pcp_layout(global_batch, {case.world_size}).hidden_restore_idx"
    assert restore.shape == (global_batch.num_tokens,), (
        f"{call}: shape {restore.shape}, expected ({global_batch.num_tokens},)"
    )
    assert np.issubdtype(restore.dtype, np.integer), f"{call}: dtype {restore.dtype}"
    assert ((restore >= 0) & (restore < len(gathered))).all(), (
        f"{call}: indices outside the {len(gathered)} gathered rows: {restore}"
    )
    assert_values(
        call,
        "all_gathered[hidden_restore_idx]",
        gathered[restore],
        np.arange(global_batch.num_tokens),
    )


@given(case=pcp_cases())
@every_world_size
def test_partition_local_fields(target, case, device):
    """Local counts, padding, gathered mapping and state, query_start_loc, logits."""
    global_batch, outs = partition_all(target, case, device)
    synchronize(device)
    with every_failure():
        _check_local_fields(case, global_batch, outs)


def _check_local_fields(case, global_batch, outs) -> None:
    padded = max(out.num_tokens for out in outs)
    for rank, out in enumerate(outs):
        call = partition_call(case, rank)
        l2g = np.asarray(out.local_to_global_batch_req_idx_np)
        if not ((l2g >= 0) & (l2g < global_batch.num_reqs)).all():
            fail(
                f"{call}: local_to_global_batch_req_idx_np {l2g} outside "
                f"[0, {global_batch.num_reqs})"
            )
            continue
        assert_equal(call, "num_tokens", out.num_tokens, int(out.num_scheduled_tokens.sum()))
        assert_equal(
            call, "num_tokens_after_padding (max over ranks)", out.num_tokens_after_padding, padded
        )
        assert_values(call, "idx_mapping_np", out.idx_mapping_np, global_batch.idx_mapping_np[l2g])
        assert_values(call, "idx_mapping", out.idx_mapping, global_batch.idx_mapping_np[l2g])
        prefill_len = global_batch.prefill_len_np[l2g]
        assert_values(call, "prefill_len_np", out.prefill_len_np, prefill_len)
        # A segment starting at position s has min(s, prefill_len) prompt tokens behind it.
        computed_prefill = np.minimum(out.num_computed_tokens_np, prefill_len)
        assert_values(
            call,
            "num_computed_prefill_tokens_np",
            out.num_computed_prefill_tokens_np,
            computed_prefill,
        )
        prefilling = computed_prefill < prefill_len
        assert_values(call, "is_prefilling_np", out.is_prefilling_np, prefilling)
        assert_equal(call, "has_prefill", out.has_prefill, bool(prefilling.any()))
        qsl = oracle.query_start_loc(out.num_scheduled_tokens.tolist())
        assert_values(call, "query_start_loc_np", out.query_start_loc_np, qsl)
        assert_values(
            call, "seq_lens", out.seq_lens, out.num_computed_tokens_np + out.num_scheduled_tokens
        )
        if out.num_tokens:
            assert_values(call, "logits_indices", out.logits_indices, qsl[1:] - 1)
            assert_values(
                call, "cu_num_logits_np", out.cu_num_logits_np, np.arange(out.num_reqs + 1)
            )


@given(case=placeholder_cases())
@placeholder_examples
def test_rank_without_segments_gets_one_placeholder_row(target, case, device):
    _, outs = partition_all(target, case, device)
    synchronize(device)
    rank = case.world_size - 1
    out, call = outs[rank], partition_call(case, rank)
    assert_equal(call, "num_reqs (one placeholder row)", out.num_reqs, 1)
    assert_equal(call, "num_tokens", out.num_tokens, 0)
    assert_values(call, "num_scheduled_tokens", out.num_scheduled_tokens, [0])
    assert_values(call, "query_start_loc_np", out.query_start_loc_np, [0, 0])
    assert_values(call, "cu_num_logits_np (no logits)", out.cu_num_logits_np, [0, 0])
    assert_values(
        call, "logits_indices (no logits)", out.logits_indices, np.zeros(0, dtype=np.int64)
    )


def _capacity_limits(outs, batch_case) -> list[tuple[int, int, int, int, int]]:
    """(rank, buffers' max_num_reqs, max_num_tokens, needed, available) for the limits a
    partition can break: rows on the rank with the most, padded tokens (the same on
    every rank) on the last rank, where placeholders appear."""
    rows = max(range(len(outs)), key=lambda r: outs[r].num_reqs)
    reqs, tokens = outs[rows].num_reqs, outs[-1].num_tokens_after_padding
    limits = [
        (rows, reqs - 1, batch_case.max_num_tokens, reqs, reqs - 1),
        (len(outs) - 1, 2 * batch_case.max_num_reqs, tokens - 1, tokens, tokens - 1),
    ]
    return [lim for lim in limits if lim[4] >= 1]


@given(case=pcp_cases())
@every_world_size
def test_capacity_errors_name_both_numbers(target, case, device):
    """Too many local rows or padded tokens for the buffers: exactly RuntimeError
    naming the needed and the available number; the buffers are left as they were
    (filled with sentinels first, so any write shows)."""
    global_batch, outs = partition_all(target, case, device)
    limits = _capacity_limits(outs, case.batch_case)
    # One 1-token request leaves nothing to overflow: not a case for this property.
    assume(limits)
    for rank, max_reqs, max_tokens, need, have in limits:
        call = (
            f"partition_batch(global_batch, {case.world_size}, {rank}, "
            f"InputBuffers({max_reqs}, {max_tokens}))"
        )
        buffers = target.InputBuffers(max_reqs, max_tokens, device)
        state.fill_with_sentinels({"buffers": buffers})
        before = state.snapshot({"buffers": buffers})
        assert_raises(
            call,
            RuntimeError,
            target.partition_batch,
            global_batch,
            case.world_size,
            rank,
            buffers,
            match=lambda e, need=need, have=have: (
                None
                if str(need) in str(e) and str(have) in str(e)
                else f"does not name {need} (needed) and {have} (available)"
            ),
        )
        state.assert_unchanged(call, before, {"buffers": buffers})
    event(f"capacity errors checked: {len(limits)}")


@given(case=batch_cases(kinds=("spec_decode",)), world_size=st.sampled_from(WORLD_SIZES))
def test_partition_rejects_drafts_and_bad_ranks(target, device, case, world_size):
    _, buffers, global_batch = prepare(target, case, device)
    if global_batch.num_draft_tokens:
        assert_raises(
            f"partition_batch(global_batch with {global_batch.num_draft_tokens} "
            f"drafts, {world_size}, 0, buffers)",
            NotImplementedError,
            target.partition_batch,
            global_batch,
            world_size,
            0,
            buffers,
        )
    nodraft = replace(case, draft_tokens={}, kind="no drafts")
    plain = prepare(target, nodraft, device)[2]
    big = target.InputBuffers(2 * case.max_num_reqs, case.max_num_tokens, device)
    for bad_world, bad_rank, what in (
        (0, 0, "world"),
        (world_size, world_size, "rank"),
        (world_size, -1, "rank"),
    ):
        call = f"partition_batch(global_batch, {bad_world}, {bad_rank}, buffers)"
        bad_value = bad_rank if what == "rank" else bad_world
        assert_raises(
            call,
            ValueError,
            target.partition_batch,
            plain,
            bad_world,
            bad_rank,
            big,
            match=lambda e, what=what, bad=bad_value: (
                None
                if what in str(e).lower() and str(bad) in str(e)
                else f"does not name the bad {what} ({bad})"
            ),
        )
