"""The free list is FIFO: freed slots go to the back, so slots are not reused LIFO."""
import impl
from impl import *  # noqa: F401,F403

FAMILY = "slot_table"


class SlotTable(impl.SlotTable):
    def remove_request(self, req_id):
        slot = super().remove_request(req_id)
        if slot is not None:
            self.free_slots.insert(0, self.free_slots.pop())
        return slot
