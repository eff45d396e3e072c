"""Slot tables built by replaying random add/remove histories (holes, LIFO reuse)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from mrv2_conformance.strategies.ids import draw_fresh_id, request_ids

# (op, req_id, prefill_len, num_computed_tokens); remove ops carry zeros.
Op = tuple[str, str, int, int]


@dataclass
class SlotHistory:
    max_num_reqs: int
    ops: list[Op]
    live: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> (prefill, computed)
    removed: list[str] = field(default_factory=list)  # ids removed and not re-added

    @classmethod
    def from_ops(cls, max_num_reqs: int, *ops: Op) -> SlotHistory:
        """A fixed history (explicit examples): live and removed ids derived from ops."""
        hist = cls(max_num_reqs, list(ops))
        for op, req_id, prefill_len, computed in ops:
            if op == "add":
                hist.live[req_id] = (prefill_len, computed)
            else:
                del hist.live[req_id]
                hist.removed.append(req_id)
        hist.removed = [r for r in hist.removed if r not in hist.live]
        return hist

    def build(self, target: Any) -> Any:
        """Replay the history on ``target.SlotTable``."""
        table = target.SlotTable(self.max_num_reqs)
        for op, req_id, prefill_len, computed in self.ops:
            if op == "add":
                table.add_request(req_id, prefill_len, computed)
            else:
                table.remove_request(req_id)
        return table

SMALL_TABLE = 16
LARGE_TABLE = 64
_PREFILL_LEN = st.integers(1, 96)
_OFFSET = st.integers(0, 64)
_PACKED = st.integers(0, 96 * 65 - 1)
_BOOL = st.booleans()


def table_sizes() -> st.SearchStrategy[int]:
    """max_num_reqs: 1-16 in four draws of five, 17-64 in the fifth, so size-dependent
    code paths (a sort or lookup that changes method past a threshold) are reached at
    every budget, while most examples stay small and fast."""
    return st.sampled_from(("small",) * 4 + ("large",)).flatmap(
        lambda size: st.integers(1, SMALL_TABLE) if size == "small"
        else st.integers(SMALL_TABLE + 1, LARGE_TABLE))


@st.composite
def slot_histories(draw: st.DrawFn, *, max_num_reqs: int | None = None,
                   state: str = "any", min_live: int = 1, end_full: bool = False,
                   max_len: int = 12) -> SlotHistory:
    """A random history ending with at least ``min_live`` live requests.

    ``end_full``: the history ends with every slot taken (after its removals).
    ``state`` constrains the added requests: ``"prefill"`` (computed < prefill_len),
    ``"decode"`` (prompt done) or ``"any"``.
    """
    if max_num_reqs is None:
        max_num_reqs = max(min_live, draw(table_sizes(), label="max_num_reqs"))
    hist = SlotHistory(max_num_reqs, [])
    used: set[str] = set()
    # A large table numbers its ids after one drawn prefix: a few choices per
    # request, so a 64-request history stays a small example.
    prefix = draw(request_ids(), label="id_prefix") if max_num_reqs > SMALL_TABLE else None

    def add() -> None:
        req_id = draw_fresh_id(draw, used) if prefix is None else f"{prefix}#{len(used)}"
        used.add(req_id)
        if prefix is None:
            prefill_len = draw(_PREFILL_LEN, label="prefill_len")
            offset = draw(_OFFSET, label="computed")
        else:  # one choice per request in a large table: (prefill_len, offset) packed
            prefill_len, offset = divmod(draw(_PACKED, label="prefill_len_and_computed"), 65)
            prefill_len += 1
        # Computed tokens as an offset from a state boundary: cheap to draw, and
        # shrinks to the boundary (a fresh prefill, or a just-finished prompt).
        if state == "prefill":
            computed = min(offset, prefill_len - 1)
        elif state == "decode":
            computed = prefill_len + offset
        else:
            computed = offset
        hist.ops.append(("add", req_id, prefill_len, computed))
        hist.live[req_id] = (prefill_len, computed)

    # An initial fill (up to a full table), then a random add/remove tail. The
    # simplest example is "add min_live requests".
    start_full = draw(_BOOL, label="start_full")  # a full table is a case of its own
    # A large table starts with more than SMALL_TABLE requests: that is its point.
    least = min_live if prefix is None else SMALL_TABLE + 1
    initial = max_num_reqs if start_full else draw(st.integers(least, max_num_reqs),
                                                   label="initial_adds")
    for _ in range(initial):
        add()
    for _ in range(draw(st.integers(0, max_len), label="extra_ops")):
        full = len(hist.live) >= max_num_reqs
        if hist.live and (full or draw(_BOOL)):
            victim = draw(st.sampled_from(sorted(hist.live)))
            if len(hist.live) <= min_live:
                continue
            del hist.live[victim]
            hist.removed.append(victim)
            hist.ops.append(("remove", victim, 0, 0))
        else:
            add()
    while end_full and len(hist.live) < max_num_reqs:
        add()
    hist.removed = [r for r in hist.removed if r not in hist.live]
    return hist
