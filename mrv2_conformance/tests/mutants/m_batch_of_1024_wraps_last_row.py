"""The gather stages idx_mapping_np in a table of 1,023 rows (max_num_seqs - 1: an
off-by-one in a kernel's capacity) and the 1,024th request's row wraps onto row 0:
right for every batch of up to 1,023 requests, wrong for a full batch of vLLM's
max_num_seqs=1,024."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import gather, prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

_original = gather.build_idx_mapping
FAMILY = "ordering"
_ROWS = 1_023


def _build_idx_mapping(req_id_to_index, req_ids):
    out = _original(req_id_to_index, req_ids)
    for row in range(_ROWS, len(out)):
        out[row % _ROWS] = out[row]
    return out


gather_batch_req_state = with_patches(
    impl.gather_batch_req_state, (gather, "build_idx_mapping", _build_idx_mapping)
)
prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
