"""idx_mapping_np is int32 (the pre-#51210 dtype), so every use converts it."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "dtype_width"


def _int32_gather(*args):
    state = impl.gather.gather_batch_req_state(*args)
    state.idx_mapping_np = state.idx_mapping_np.astype(np.int32)
    return state


gather_batch_req_state = _int32_gather
prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", _int32_gather)
)
