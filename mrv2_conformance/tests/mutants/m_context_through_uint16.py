"""prepare_inputs packs each request's computed tokens into a 16-bit field (a compact
per-request record): right for every context under 65,536 tokens, wrong past it."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "ordering"


def _gather(batch, table, decode_query_len):
    state = impl.gather_batch_req_state(batch, table, decode_query_len)
    state.num_computed_tokens_np = state.num_computed_tokens_np.astype(np.uint16).astype(np.int32)
    return state


prepare_inputs = with_patches(impl.prepare_inputs, (prepare, "gather_batch_req_state", _gather))
