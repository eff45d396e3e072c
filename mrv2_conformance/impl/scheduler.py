"""The part of upstream ``SchedulerOutput`` that the index mapping reads: one
scheduler step (CONTRACT, Terms; F4 for the request updates it carries)."""

from __future__ import annotations

from dataclasses import dataclass, field

from mrv2_conformance.impl._checks import INT32_MAX, check_int, check_req_id


@dataclass(frozen=True)
class NewRequest:
    """A request the runner has not seen (upstream ``NewRequestData``): its prompt as
    the runner prefills it (``prefill_len`` tokens, prompt plus any output a resumed
    request already has) and the tokens already computed (prefix-cache hits)."""

    req_id: str
    prefill_len: int
    num_computed_tokens: int = 0


@dataclass(frozen=True)
class SchedulerBatch:
    """One scheduler step: tokens per request (insertion order = scheduler order) and
    draft tokens per request (missing or empty = no drafts); and the request updates
    that come with it (F4): requests finished since the last step, new requests, and
    the running requests' computed tokens (id -> count, in scheduler order). The
    containers belong to the engine: every function only reads them."""

    num_scheduled_tokens: dict[str, int]
    scheduled_spec_decode_tokens: dict[str, list[int]] = field(default_factory=dict)
    total_num_scheduled_tokens: int | None = None
    scheduled_new_reqs: list[NewRequest] = field(default_factory=list)
    scheduled_cached_reqs: dict[str, int] = field(default_factory=dict)
    finished_req_ids: set[str] = field(default_factory=set)

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
    if total > INT32_MAX:
        raise ValueError(f"the step schedules {total} tokens, more than int32 holds "
                         f"(query_start_loc is int32)")
    for req_id, drafts in batch.scheduled_spec_decode_tokens.items():
        if req_id in num and drafts and len(drafts) >= num[req_id]:
            raise ValueError(
                f"request {req_id!r} has {len(drafts)} draft tokens but only "
                f"{num[req_id]} scheduled tokens (drafts are part of the count, plus one)")
