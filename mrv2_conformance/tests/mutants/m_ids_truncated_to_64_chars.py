"""The backend keys its own slot index by the first 64 characters of a request id (a
fixed-size C string): ids that share their first 64 characters collide."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "ordering"


class SlotTable(impl.SlotTable):
    def __init__(self, max_num_reqs):
        super().__init__(max_num_reqs)
        self.slot_of_key = {}

    def add_request(self, req_id, prefill_len, num_computed_tokens=0):
        slot = super().add_request(req_id, prefill_len, num_computed_tokens)
        self.slot_of_key[req_id[:64]] = slot
        return slot


def gather_batch_req_state(batch, table, decode_query_len):
    state = impl.gather_batch_req_state(batch, table, decode_query_len)
    state.idx_mapping_np = np.array(
        [table.slot_of_key[r[:64]] for r in state.req_ids], dtype=np.intp
    )
    return state


prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
