"""The dummy batch keeps the pre-#51210 int32 mapping (np.int32 / torch.int32)."""
import numpy as np
import torch

import impl
from impl import *  # noqa: F401,F403

FAMILY = "dtype_width"


def make_dummy(*args, **kwargs):
    out = impl.make_dummy(*args, **kwargs)
    out.idx_mapping_np = out.idx_mapping_np.astype(np.int32)
    out.idx_mapping = out.idx_mapping.to(torch.int32)
    out.expanded_idx_mapping = out.idx_mapping
    return out
