"""remove_request of an unknown id raises KeyError instead of returning None."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "slot_table"


class SlotTable(impl.SlotTable):
    def remove_request(self, req_id):
        if req_id not in self.req_id_to_index:
            raise KeyError(req_id)
        return super().remove_request(req_id)
