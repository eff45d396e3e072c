"""prepare_inputs offsets each context by 2**18 (room for the positions of tokens it
may draft) in saturating int32 arithmetic, as some accelerators' vector adds do, and
takes the offset off again: right for every context more than 2**18 below the int32
limit, wrong (clamped) within 2**18 of it, where the contract still allows contexts."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.impl._checks import INT32_MAX
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "ordering"
_HEADROOM = 2**18


def _gather(batch, table, decode_query_len):
    state = impl.gather_batch_req_state(batch, table, decode_query_len)
    shifted = np.minimum(state.num_computed_tokens_np.astype(np.int64) + _HEADROOM, INT32_MAX)
    state.num_computed_tokens_np = (shifted - _HEADROOM).astype(np.int32)
    return state


prepare_inputs = with_patches(impl.prepare_inputs, (prepare, "gather_batch_req_state", _gather))
