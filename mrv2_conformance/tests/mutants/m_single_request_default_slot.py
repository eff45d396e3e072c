"""The one-request fast path looks its id up with dict.get(req_id, 0): a batch of a
single missing id gets slot 0 instead of a KeyError."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import gather, prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

_original = gather.build_idx_mapping  # captured before any patching

FAMILY = "keyerror"


def _build_idx_mapping(req_id_to_index, req_ids):
    if len(req_ids) == 1:
        return np.array([req_id_to_index.get(req_ids[0], 0)], dtype=np.intp)
    return _original(req_id_to_index, req_ids)


gather_batch_req_state = with_patches(
    impl.gather_batch_req_state, (gather, "build_idx_mapping", _build_idx_mapping)
)
prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
