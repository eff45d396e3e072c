"""Adding to a full table silently evicts the most recently added request."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "slot_table"


class SlotTable(impl.SlotTable):
    def add_request(self, req_id, prefill_len, num_computed_tokens=0):
        if not self.free_slots and self.req_id_to_index:
            self.remove_request(next(reversed(self.req_id_to_index)))
        return super().add_request(req_id, prefill_len, num_computed_tokens)
