"""The gather builds idx_mapping_np through a uint8 staging array (then intp): right
for tables of up to 256 slots, wrong for a slot past 255 (vLLM's max_num_seqs is 1,024
on large GPUs)."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import gather, prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

_original = gather.build_idx_mapping
FAMILY = "ordering"


def _build_idx_mapping(req_id_to_index, req_ids):
    return _original(req_id_to_index, req_ids).astype(np.uint8).astype(np.intp)


gather_batch_req_state = with_patches(
    impl.gather_batch_req_state, (gather, "build_idx_mapping", _build_idx_mapping)
)
prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
