"""The gather builds idx_mapping_np in blocks of 512 requests and writes every block
past the first from the first one's rows (a kernel launched with a fixed block, its
offset dropped): right for every batch of up to 512 requests, wrong for the 513th
request on (a batch of vLLM's max_num_seqs=1,024)."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import gather, prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

_original = gather.build_idx_mapping
FAMILY = "ordering"
_BLOCK = 512


def _build_idx_mapping(req_id_to_index, req_ids):
    out = _original(req_id_to_index, req_ids)
    for start in range(_BLOCK, len(out), _BLOCK):
        rows = out[start : start + _BLOCK]
        rows[:] = out[: len(rows)]
    return out


gather_batch_req_state = with_patches(
    impl.gather_batch_req_state, (gather, "build_idx_mapping", _build_idx_mapping)
)
prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
