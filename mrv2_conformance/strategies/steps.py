"""Scheduler steps with their request updates (CONTRACT F4): a slot table's history,
then one step that finishes some of its requests (and ids it never held), adds new
ones (up to the free slots, or one past them), gives the running ones their new
computed tokens, and schedules the running and new ones."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import event
from hypothesis import strategies as st
from mrv2_conformance.contract import NewRequest, SchedulerBatch
from mrv2_conformance.impl._checks import INT32_MAX
from mrv2_conformance.strategies.batches import batches
from mrv2_conformance.strategies.ids import make_fresh
from mrv2_conformance.strategies.slot_tables import (
    SlotHistory,
    decode_request,
    draw_codes,
    sampled,
)

# How far a running request's computed tokens move with the step's update: mostly not
# at all (the last step's count), by a step's worth, or by a long way.
_ADVANCE = (0, 0, 0, 1, 3, 100, 2**15, 2**16 + 1, 2**24 + 1)
_MAX_NEW = 4
_NUM_NEW = st.integers(0, _MAX_NEW)


@dataclass(frozen=True)
class StepCase:
    """A history and one step over it (``step()`` builds fresh containers)."""

    history: SlotHistory
    finished: tuple[str, ...]  # ids that leave; some the table never held
    new: tuple[NewRequest, ...]
    cached: dict[str, int]  # running id -> the computed tokens the step gives it
    num_scheduled_tokens: dict[str, int]
    draft_tokens: dict[str, list[int]]
    decode_query_len: int
    max_num_tokens: int
    past_capacity: bool = False  # one new request more than the free slots
    unknown_cached: tuple[str, ...] = field(default=())  # cached ids the table lacks

    @property
    def max_num_reqs(self) -> int:
        return self.history.max_num_reqs

    def step(self) -> SchedulerBatch:
        return SchedulerBatch(
            dict(self.num_scheduled_tokens),
            {k: list(v) for k, v in self.draft_tokens.items()},
            scheduled_new_reqs=list(self.new),
            scheduled_cached_reqs=dict(self.cached),
            finished_req_ids=set(self.finished),
        )

    def build_table(self, target: Any) -> Any:
        return self.history.build(target)


_BOOL = st.booleans()


def _default_shape(draw: st.DrawFn) -> str:
    """Half the steps within capacity, the rest one the table must refuse, each as its
    own aligned choice: a sampled_from of the three reached the last one 0 times in 100
    under Hypothesis 6.130 (its draws biased by the constants of the loaded modules)."""
    if draw(_BOOL, label="step_within_capacity"):
        return "within capacity"
    return "past capacity" if draw(_BOOL, label="step_past_capacity") else "unknown cached id"


@st.composite
def step_cases(draw: st.DrawFn, shapes: tuple[str, ...] | None = None) -> StepCase:
    case = draw(batches())
    shape = draw(sampled(shapes), label="step_shape") if shapes else _default_shape(draw)
    hist, num = case.history, dict(case.num_scheduled_tokens)
    drafts = dict(case.draft_tokens)
    live = list(hist.live)
    # Finish a third of the live ids (one code per live id), scheduled or not: a
    # finished one leaves the step's schedule, which keeps at least one request. Now
    # and then an id the table never held (a request aborted before the runner saw it).
    codes = draw_codes(draw, len(live) + _MAX_NEW, 256 * 256, "step_codes")
    finished = [r for r, c in zip(live, codes, strict=False) if c % 3 == 0]
    if num and set(num) <= set(finished):
        finished.remove(next(iter(num)))
    for r in finished:
        num.pop(r, None)
        drafts.pop(r, None)
    taken = {*live, *hist.removed}
    if draw(_BOOL, label="finish_an_unknown_id"):
        finished.append(make_fresh("never-seen", taken))
    free = hist.max_num_reqs - len(live) + len([r for r in finished if r in hist.live])
    want = draw(_NUM_NEW, label="num_new")
    count = free + 1 if shape == "past capacity" else min(want, free)
    new, budget_extra = [], 0
    reuse = [r for r in hist.removed if r not in num]
    for j in range(count):
        code = codes[len(live) + j % _MAX_NEW]
        # A new request reuses an id that left earlier, or is named fresh.
        req_id = reuse.pop() if reuse and code % 2 else make_fresh(f"new-{j}", {*taken, *num})
        taken.add(req_id)
        prefill_len, offset = decode_request(code)
        computed = min(offset, prefill_len - 1) if code % 5 else prefill_len + offset
        new.append(NewRequest(req_id, prefill_len, computed))
        tokens = 1 if computed >= prefill_len else 1 + code % (prefill_len - computed)
        num[req_id] = tokens
        budget_extra += tokens
    cached = {}
    for i, req_id in enumerate(r for r in case.num_scheduled_tokens if r in num):
        prefill_len, computed = hist.live[req_id]
        advance = _ADVANCE[codes[i % len(codes)] % len(_ADVANCE)] if codes else 0
        cached[req_id] = min(computed + advance, INT32_MAX - num[req_id])
    unknown: tuple[str, ...] = ()
    if shape == "unknown cached id":
        unknown = (make_fresh("not-running", {*taken, *num}),)
        cached[unknown[0]] = 5
    event(f"step: {shape}")
    if finished:
        event("step: finishes requests")
    if new:
        event("step: adds requests")
    return StepCase(
        hist,
        tuple(finished),
        tuple(new),
        cached,
        num,
        drafts,
        case.decode_query_len,
        case.max_num_tokens + budget_extra,
        past_capacity=shape == "past capacity",
        unknown_cached=unknown,
    )
