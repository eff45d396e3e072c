"""num_computed_prefill_tokens_np is gathered from num_computed_tokens (the wrong
per-slot array), which also breaks is_prefilling_np."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "ordering"


def gather_batch_req_state(batch, table, decode_query_len):
    out = impl.gather_batch_req_state(batch, table, decode_query_len)
    out.num_computed_prefill_tokens_np = table.num_computed_tokens[out.idx_mapping_np]
    out.is_prefilling_np = out.num_computed_prefill_tokens_np < out.prefill_len_np
    out.has_prefill = bool(np.any(out.is_prefilling_np))
    return out


prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
