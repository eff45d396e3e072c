"""A port without PCP, drafts or max_query_len, declared in LACKS: the reference with
those parts cut off, so that any input or call that needs one fails loudly."""

from __future__ import annotations

from typing import Any

from mrv2_conformance import impl
from mrv2_conformance.impl import *  # noqa: F403

del build_pcp_layout, partition_batch  # noqa: F821
LACKS = {
    "pcp": "this port has no prefill context parallelism",
    "drafts": "this port has no speculative decoding",
    "max_query_len": "this port's make_dummy splits evenly, always",
}


def _no_drafts(drafts: Any, scheduled: Any) -> None:
    # Entries that are empty or name requests outside the batch are no drafts
    # (docs/CONTRACT.md, Clarifications: No drafts).
    if any(drafts.get(req_id) for req_id in scheduled):
        raise AssertionError(f"the suite gave a port that lacks drafts some: {drafts!r}")


def sort_batch_req_ids(num_tokens_per_req: Any, draft_tokens: Any, decode_query_len: int) -> Any:
    _no_drafts(draft_tokens, num_tokens_per_req)
    return impl.sort_batch_req_ids(num_tokens_per_req, draft_tokens, decode_query_len)


def prepare_inputs(batch: Any, slot_table: Any, input_buffers: Any, decode_query_len: int) -> Any:
    _no_drafts(batch.scheduled_spec_decode_tokens, batch.num_scheduled_tokens)
    return impl.prepare_inputs(batch, slot_table, input_buffers, decode_query_len)


def make_dummy(num_reqs: int, num_tokens: int, input_buffers: Any) -> Any:  # no 4th argument
    return impl.make_dummy(num_reqs, num_tokens, input_buffers)
