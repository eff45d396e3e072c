"""remove_request of an unknown id raises KeyError instead of returning None."""
import impl
from impl import *  # noqa: F401,F403

FAMILY = "slot_table"


class SlotTable(impl.SlotTable):
    def remove_request(self, req_id):
        if req_id not in self.req_id_to_index:
            raise KeyError(req_id)
        return super().remove_request(req_id)
