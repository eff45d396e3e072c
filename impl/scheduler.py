"""The part of upstream ``SchedulerOutput`` that the index mapping reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from mrv2_conformance.impl._checks import INT32_MAX, check_int, check_req_id


@dataclass(frozen=True)
class SchedulerBatch:
    """One scheduler step: tokens per request (insertion order = scheduler order)
    and draft tokens per request (missing or empty = no drafts)."""

    num_scheduled_tokens: dict[str, int]
    scheduled_spec_decode_tokens: dict[str, list[int]] = field(default_factory=dict)
    total_num_scheduled_tokens: int | None = None

    def __post_init__(self) -> None:
        if self.total_num_scheduled_tokens is None:
            object.__setattr__(self, "total_num_scheduled_tokens",
                               sum(self.num_scheduled_tokens.values()))

    def num_drafts(self, req_id: str) -> int:
        return len(self.scheduled_spec_decode_tokens.get(req_id) or ())


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
            f"per-request counts sum to {total}")
    for req_id, drafts in batch.scheduled_spec_decode_tokens.items():
        if req_id in num and drafts and len(drafts) >= num[req_id]:
            raise ValueError(
                f"request {req_id!r} has {len(drafts)} draft tokens but only "
                f"{num[req_id]} scheduled tokens (drafts are part of the count, plus one)")
