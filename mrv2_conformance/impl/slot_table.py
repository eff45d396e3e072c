"""The slot table (upstream ``req_states``): request id -> slot, per-slot int32 state."""

from __future__ import annotations

import numpy as np
from mrv2_conformance.impl._checks import INT32_MAX, check_int, check_req_id


class SlotTable:
    """Fixed-capacity map of live request ids to slot indices.

    Free slots form a LIFO stack that starts as ``[0, 1, ..., max_num_reqs - 1]``,
    so the first slot handed out is ``max_num_reqs - 1`` and a freed slot is the next
    one reused; a live batch's slots are therefore distinct, arbitrary, with holes.
    """

    def __init__(self, max_num_reqs: int) -> None:
        self.max_num_reqs = check_int("max_num_reqs", max_num_reqs, minimum=1)
        self.req_id_to_index: dict[str, int] = {}
        self.free_slots: list[int] = list(range(self.max_num_reqs))
        self.num_computed_tokens = np.zeros(self.max_num_reqs, dtype=np.int32)
        self.prefill_len = np.zeros(self.max_num_reqs, dtype=np.int32)
        self.num_computed_prefill_tokens = np.zeros(self.max_num_reqs, dtype=np.int32)

    @property
    def num_reqs(self) -> int:
        return len(self.req_id_to_index)

    def add_request(self, req_id: str, prefill_len: int, num_computed_tokens: int = 0) -> int:
        """Give ``req_id`` a slot and return it. Raises before changing anything if
        the id is already live, a count is out of range, or the table is full."""
        check_req_id(req_id)
        prefill_len = check_int("prefill_len", prefill_len, minimum=0, maximum=INT32_MAX)
        num_computed_tokens = check_int(
            "num_computed_tokens", num_computed_tokens, minimum=0, maximum=INT32_MAX
        )
        if req_id in self.req_id_to_index:
            raise ValueError(
                f"request {req_id!r} is already in the slot table "
                f"(slot {self.req_id_to_index[req_id]})"
            )
        if not self.free_slots:
            raise RuntimeError(
                f"slot table is full: cannot add {req_id!r}, all "
                f"{self.max_num_reqs} slots are in use"
            )
        slot = self.free_slots.pop()
        self.req_id_to_index[req_id] = slot
        self.prefill_len[slot] = prefill_len
        self.num_computed_tokens[slot] = num_computed_tokens
        self.num_computed_prefill_tokens[slot] = min(num_computed_tokens, prefill_len)
        return slot

    def remove_request(self, req_id: str) -> int | None:
        """Free ``req_id``'s slot and return it; an unknown id returns None and
        changes nothing."""
        slot = self.req_id_to_index.pop(req_id, None)
        if slot is None:
            return None
        self.free_slots.append(slot)
        return slot
