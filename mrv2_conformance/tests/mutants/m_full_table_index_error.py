"""Adding to a full table raises IndexError from the empty free list (list.pop),
not the table's own error saying it is full and naming its capacity."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "slot_table"


class SlotTable(impl.SlotTable):
    def add_request(self, req_id, prefill_len, num_computed_tokens=0):
        if not self.free_slots:
            raise IndexError("pop from empty list")
        return super().add_request(req_id, prefill_len, num_computed_tokens)
