"""The dummy batch keeps the pre-#51210 int32 mapping (np.int32 / torch.int32)."""

import numpy as np
import torch
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "dtype_width"


def make_dummy(*args, **kwargs):
    out = impl.make_dummy(*args, **kwargs)
    out.idx_mapping_np = out.idx_mapping_np.astype(np.int32)
    out.idx_mapping = out.idx_mapping.to(torch.int32)
    out.expanded_idx_mapping = out.idx_mapping
    return out
