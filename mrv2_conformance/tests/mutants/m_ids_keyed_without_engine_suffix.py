"""The backend keys its own slot index by the request's external id, stripping the
8-hex suffix vLLM's engine appends ("-1a2b3c4d"): two requests of a client that reuses
its X-Request-Id collide, and the gather maps both to the later one's slot."""

import re

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "ordering"
_SUFFIX = re.compile(r"-[0-9a-f]{8}$")


def _external(req_id):
    return _SUFFIX.sub("", req_id)


class SlotTable(impl.SlotTable):
    def __init__(self, max_num_reqs):
        super().__init__(max_num_reqs)
        self.slot_of_external = {}

    def add_request(self, req_id, prefill_len, num_computed_tokens=0):
        slot = super().add_request(req_id, prefill_len, num_computed_tokens)
        self.slot_of_external[_external(req_id)] = slot
        return slot


def gather_batch_req_state(batch, table, decode_query_len):
    state = impl.gather_batch_req_state(batch, table, decode_query_len)
    state.idx_mapping_np = np.array(
        [table.slot_of_external[_external(r)] for r in state.req_ids], dtype=np.intp
    )
    return state


prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
