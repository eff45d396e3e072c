"""PCP local_to_global_batch_req_idx_np is int32 (the pre-#51210 dtype)."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "dtype_width"


def partition_batch(*args):
    out = impl.partition_batch(*args)
    out.local_to_global_batch_req_idx_np = out.local_to_global_batch_req_idx_np.astype(np.int32)
    return out
