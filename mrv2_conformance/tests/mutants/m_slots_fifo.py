"""The free list is FIFO: freed slots go to the back, so slots are not reused LIFO."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "slot_table"


class SlotTable(impl.SlotTable):
    def remove_request(self, req_id):
        slot = super().remove_request(req_id)
        if slot is not None:
            self.free_slots.insert(0, self.free_slots.pop())
        return slot
