"""Slot tables built by replaying random add/remove histories (holes, LIFO reuse)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from strategies.ids import draw_fresh_id

# (op, req_id, prefill_len, num_computed_tokens); remove ops carry zeros.
Op = tuple[str, str, int, int]


@dataclass
class SlotHistory:
    max_num_reqs: int
    ops: list[Op]
    live: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> (prefill, computed)
    removed: list[str] = field(default_factory=list)  # ids removed and not re-added

    def build(self, target: Any) -> Any:
        """Replay the history on ``target.SlotTable``."""
        table = target.SlotTable(self.max_num_reqs)
        for op, req_id, prefill_len, computed in self.ops:
            if op == "add":
                table.add_request(req_id, prefill_len, computed)
            else:
                table.remove_request(req_id)
        return table

    def snippet_lines(self) -> list[str]:
        lines = [f"table = t.SlotTable({self.max_num_reqs})"]
        for op, req_id, prefill_len, computed in self.ops:
            if op == "add":
                lines.append(f"table.add_request({req_id!r}, {prefill_len}, {computed})")
            else:
                lines.append(f"table.remove_request({req_id!r})")
        return lines


_PREFILL_LEN = st.integers(1, 96)
_OFFSET = st.integers(0, 64)
_BOOL = st.booleans()


@st.composite
def slot_histories(draw: st.DrawFn, *, max_num_reqs: int | None = None,
                   state: str = "any", min_live: int = 1,
                   max_len: int = 12) -> SlotHistory:
    """A random history ending with at least ``min_live`` live requests.

    ``state`` constrains the added requests: ``"prefill"`` (computed < prefill_len),
    ``"decode"`` (prompt done) or ``"any"``.
    """
    if max_num_reqs is None:
        max_num_reqs = draw(st.integers(max(1, min_live), 16), label="max_num_reqs")
    hist = SlotHistory(max_num_reqs, [])
    used: set[str] = set()

    def add() -> None:
        req_id = draw_fresh_id(draw, used)
        used.add(req_id)
        prefill_len = draw(_PREFILL_LEN, label="prefill_len")
        # Computed tokens as an offset from a state boundary: cheap to draw, and
        # shrinks to the boundary (a fresh prefill, or a just-finished prompt).
        if state == "prefill":
            computed = min(draw(_OFFSET, label="computed"), prefill_len - 1)
        elif state == "decode":
            computed = prefill_len + draw(_OFFSET, label="decode_steps")
        else:
            computed = draw(_OFFSET, label="computed")
        hist.ops.append(("add", req_id, prefill_len, computed))
        hist.live[req_id] = (prefill_len, computed)

    # An initial fill (up to a full table), then a random add/remove tail. The
    # simplest example is "add min_live requests".
    start_full = draw(_BOOL, label="start_full")  # a full table is a case of its own
    initial = max_num_reqs if start_full else draw(st.integers(min_live, max_num_reqs),
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
    hist.removed = [r for r in hist.removed if r not in hist.live]
    return hist
