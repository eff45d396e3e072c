"""A backend's per-slot "is prefilling" flag (a host mirror kept to skip a compare per
step), set when a request is added and never cleared when a step's update completes
its prefill: a prompt prefilled over several steps still counts as prefilling when it
decodes, so the batch order (prefills after decodes), has_prefill and is_prefilling_np
are wrong from its first decode on."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "stateful"


class SlotTable(impl.SlotTable):
    def __init__(self, max_num_reqs):
        super().__init__(max_num_reqs)
        self.prefilling = np.zeros(self.max_num_reqs, dtype=bool)

    def add_request(self, req_id, prefill_len, num_computed_tokens=0):
        slot = super().add_request(req_id, prefill_len, num_computed_tokens)
        self.prefilling[slot] = num_computed_tokens < prefill_len
        return slot


def _gather(batch, table, decode_query_len):
    state = impl.gather_batch_req_state(batch, table, decode_query_len)
    state.is_prefilling_np = table.prefilling[state.idx_mapping_np]
    state.has_prefill = bool(state.is_prefilling_np.any())
    return state


prepare_inputs = with_patches(impl.prepare_inputs, (prepare, "gather_batch_req_state", _gather))
