"""Several missing ids raise one KeyError carrying all of them as a tuple
(args == (('a', 'b'),)), not KeyError(req_id) naming one missing id."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import gather, prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

_original = gather.build_idx_mapping  # captured before any patching

FAMILY = "keyerror"


def _build_idx_mapping(req_id_to_index, req_ids):
    missing = tuple(r for r in req_ids if r not in req_id_to_index)
    if len(missing) > 1:
        raise KeyError(missing)
    return _original(req_id_to_index, req_ids)


gather_batch_req_state = with_patches(
    impl.gather_batch_req_state, (gather, "build_idx_mapping", _build_idx_mapping)
)
prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
