"""prepare_inputs memoizes the slots of a step's requests by the set of ids it
schedules, on the slot table (a backend saving the lookups while decode steps repeat
the same batch), and never invalidates the memo: when the same requests are scheduled
again after one of them finished and came back on another slot, the batch carries the
slot it had before."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "stateful"


def _gather(batch, table, decode_query_len):
    state = impl.gather_batch_req_state(batch, table, decode_query_len)
    memo = table.__dict__.setdefault("slots_by_batch", {})
    slots = memo.setdefault(
        frozenset(state.req_ids),
        dict(zip(state.req_ids, state.idx_mapping_np.tolist(), strict=True)),
    )
    state.idx_mapping_np = np.array([slots[r] for r in state.req_ids], dtype=np.intp)
    state.num_computed_tokens_np = table.num_computed_tokens[state.idx_mapping_np]
    return state


prepare_inputs = with_patches(impl.prepare_inputs, (prepare, "gather_batch_req_state", _gather))
