"""A backend's own host copy of each slot's computed tokens (as vllm-ascend keeps
num_computed_tokens_cpu), written when a request is added and never when a step gives
a running request its new count: seq_lens and num_computed_tokens_np are right for a
request's first step only."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "stateful"


class SlotTable(impl.SlotTable):
    def __init__(self, max_num_reqs):
        super().__init__(max_num_reqs)
        self.num_computed_tokens_cpu = np.zeros(self.max_num_reqs, dtype=np.int32)

    def add_request(self, req_id, prefill_len, num_computed_tokens=0):
        slot = super().add_request(req_id, prefill_len, num_computed_tokens)
        self.num_computed_tokens_cpu[slot] = num_computed_tokens
        return slot


def _gather(batch, table, decode_query_len):
    state = impl.gather_batch_req_state(batch, table, decode_query_len)
    state.num_computed_tokens_np = table.num_computed_tokens_cpu[state.idx_mapping_np]
    return state


prepare_inputs = with_patches(impl.prepare_inputs, (prepare, "gather_batch_req_state", _gather))
