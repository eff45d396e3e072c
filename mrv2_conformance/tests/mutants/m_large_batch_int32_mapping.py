"""Past 16 requests the gather switches to a "compact" path that builds idx_mapping_np
as int32: right for every batch the old strategies drew, wrong for large ones."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import gather, prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

_original = gather.build_idx_mapping  # captured before any patching

FAMILY = "dtype_width"


def _build_idx_mapping(req_id_to_index, req_ids):
    out = _original(req_id_to_index, req_ids)
    return out.astype(np.int32) if len(req_ids) > 16 else out


gather_batch_req_state = with_patches(
    impl.gather_batch_req_state, (gather, "build_idx_mapping", _build_idx_mapping)
)
prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
