"""The reference's check of one scheduler step (the contract's ``SchedulerBatch``,
mrv2_conformance/contract.py): a malformed step is rejected, naming what is wrong."""

from __future__ import annotations

from mrv2_conformance.contract import NewRequest, SchedulerBatch
from mrv2_conformance.impl._checks import INT32_MAX, check_int, check_req_id

__all__ = ["NewRequest", "SchedulerBatch", "validate_batch"]


def validate_batch(batch: SchedulerBatch) -> None:
    """Reject a malformed batch with an error naming the offending request/value."""
    num = batch.num_scheduled_tokens
    if not isinstance(num, dict):
        raise TypeError(f"num_scheduled_tokens must be a dict, got {type(num).__name__}")
    if not num:
        raise ValueError("the batch schedules no request (num_scheduled_tokens is empty)")
    for req_id, n in num.items():
        # Fast path for the common exact types; the checks below raise the precise error.
        if type(req_id) is not str or type(n) is not int or not 1 <= n <= INT32_MAX:
            check_req_id(req_id)
            check_int(f"num_scheduled_tokens[{req_id!r}]", n, minimum=1, maximum=INT32_MAX)
    total = sum(num.values())
    if batch.total_num_scheduled_tokens != total:
        raise ValueError(
            f"total_num_scheduled_tokens={batch.total_num_scheduled_tokens} but the "
            f"per-request counts sum to {total}"
        )
    if total > INT32_MAX:
        raise ValueError(
            f"the step schedules {total} tokens, more than int32 holds (query_start_loc is int32)"
        )
    for req_id, drafts in batch.scheduled_spec_decode_tokens.items():
        if req_id in num and drafts and len(drafts) >= num[req_id]:
            raise ValueError(
                f"request {req_id!r} has {len(drafts)} draft tokens but only "
                f"{num[req_id]} scheduled tokens (drafts are part of the count, plus one)"
            )
