"""Scheduler batches over a slot table: decode-only, prefill-only, mixed, spec-decode."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import event
from hypothesis import strategies as st

from impl.scheduler import SchedulerBatch
from strategies.ids import draw_fresh_id, request_ids
from strategies.slot_tables import SlotHistory, slot_histories

BATCH_KINDS = ("decode", "prefill", "mixed", "spec_decode")
_BOOL = st.booleans()
_STATE_FOR_KIND = {"decode": "decode", "prefill": "prefill", "mixed": "any",
                   "spec_decode": "any"}


@dataclass
class BatchCase:
    """A slot-table history plus one scheduler step over it."""

    history: SlotHistory
    num_scheduled_tokens: dict[str, int]
    draft_tokens: dict[str, list[int]]
    decode_query_len: int
    kind: str
    max_num_tokens: int  # buffer capacity, >= total tokens
    missing_id: str | None = None  # scheduled but not in the slot table

    @property
    def max_num_reqs(self) -> int:
        return self.history.max_num_reqs

    @property
    def num_tokens(self) -> int:
        return sum(self.num_scheduled_tokens.values())

    def batch(self) -> SchedulerBatch:
        # Fresh containers each time: a target that mutates its input cannot
        # poison the next call.
        return SchedulerBatch(dict(self.num_scheduled_tokens),
                              {k: list(v) for k, v in self.draft_tokens.items()})

    def build_table(self, target: Any) -> Any:
        return self.history.build(target)

    def snippet(self, target_name: str, device: str, *calls: str) -> str:
        """Python that rebuilds this input on the target and runs ``calls``."""
        lines = [
            "import importlib, numpy as np, torch",
            "from impl.scheduler import SchedulerBatch",
            f"t = importlib.import_module({target_name!r})",
            f"device = {device!r}",
            *self.history.snippet_lines(),
            f"batch = SchedulerBatch({self.num_scheduled_tokens!r}, {self.draft_tokens!r})",
            f"decode_query_len = {self.decode_query_len}",
            *calls,
        ]
        return "\n".join(lines)


@st.composite
def batch_cases(draw: st.DrawFn, kinds: tuple[str, ...] = BATCH_KINDS,
                max_num_reqs: int | None = None) -> BatchCase:
    kind = draw(st.sampled_from(kinds), label="kind")
    hist = draw(slot_histories(state=_STATE_FOR_KIND[kind], max_num_reqs=max_num_reqs),
                label="history")
    num_spec = draw(st.integers(1, 4), label="num_speculative_tokens") if kind == "spec_decode" else 0
    decode_query_len = 1 + num_spec
    order = draw(st.permutations(sorted(hist.live)), label="scheduler_order")
    if draw(_BOOL, label="schedule_all"):  # every live request: full batches are a case
        scheduled = order
    else:
        scheduled = order[: draw(st.integers(1, len(order)), label="num_reqs")]
    num: dict[str, int] = {}
    drafts: dict[str, list[int]] = {}
    for req_id in scheduled:
        prefill_len, computed = hist.live[req_id]
        if computed < prefill_len:  # chunked prefill: up to the rest of the prompt
            num[req_id] = draw(st.integers(1, prefill_len - computed), label="prefill_chunk")
        elif num_spec:
            k = draw(st.integers(0, num_spec), label="num_drafts")
            if k:
                drafts[req_id] = draw(st.lists(st.integers(0, 50_000), min_size=k, max_size=k))
            num[req_id] = 1 + k
        else:
            num[req_id] = 1
    if num_spec and draw(st.booleans(), label="foreign_draft_entry"):
        # Draft entries for ids outside the batch must be ignored.
        drafts[draw_fresh_id(draw, num, label="foreign_draft_id")] = [7]
    total = sum(num.values())
    case = BatchCase(hist, num, drafts, decode_query_len, kind,
                     max_num_tokens=total + draw(st.integers(0, 8), label="spare_tokens"))
    event(f"batch kind: {kind}")
    event(f"num_reqs: {'1' if len(num) == 1 else '2-4' if len(num) <= 4 else '5+'}")
    if len(num) < len(hist.live) or hist.removed:
        event("slot table has holes")
    return case


@st.composite
def missing_id_cases(draw: st.DrawFn) -> BatchCase:
    """A batch that schedules exactly one id absent from the slot table: one that was
    removed earlier when the history has one, else a never-seen id."""
    case = draw(batch_cases())
    candidates = [r for r in case.history.removed if r not in case.num_scheduled_tokens]
    if candidates and draw(st.booleans(), label="missing_was_removed"):
        missing = draw(st.sampled_from(candidates))
        event("missing id: removed earlier")
    else:
        missing = draw_fresh_id(draw, {*case.history.live, *case.num_scheduled_tokens},
                                label="missing_id")
        event("missing id: never added")
    items = list(case.num_scheduled_tokens.items())
    pos = draw(st.integers(0, len(items)), label="missing_position")
    items.insert(pos, (missing, draw(st.integers(1, 8), label="missing_tokens")))
    case.num_scheduled_tokens = dict(items)
    case.draft_tokens.pop(missing, None)
    case.max_num_tokens = case.num_tokens + 8
    case.missing_id = missing
    return case


@dataclass
class SortCase:
    """Arguments of sort_batch_req_ids alone: no slot table needed, so the search
    is dense in the shapes that distinguish orders (ties, partial drafts)."""

    num_tokens_per_req: dict[str, int]
    draft_tokens: dict[str, list[int]]
    decode_query_len: int

    def snippet(self, target_name: str) -> str:
        return (f"import importlib\nt = importlib.import_module({target_name!r})\n"
                f"t.sort_batch_req_ids({self.num_tokens_per_req!r}, {self.draft_tokens!r}, "
                f"{self.decode_query_len})")


@st.composite
def sort_cases(draw: st.DrawFn) -> SortCase:
    decode_query_len = draw(st.integers(1, 4), label="decode_query_len")
    ids = draw(st.lists(request_ids(), min_size=1, max_size=10, unique=True), label="req_ids")
    num: dict[str, int] = {}
    drafts: dict[str, list[int]] = {}
    for req_id in ids:
        # Small counts make ties and uniform decodes (num == decode_query_len) common.
        num[req_id] = draw(st.integers(1, 6), label="num_tokens")
        k = draw(st.integers(0, num[req_id] - 1), label="num_drafts")
        if k or draw(_BOOL, label="empty_draft_entry"):
            drafts[req_id] = [0] * k  # an empty list means no drafts, like a missing key
    return SortCase(num, drafts, decode_query_len)
