"""The device idx_mapping is torch.int32 while the host array is intp."""

import torch
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "dtype_width"


def prepare_inputs(*args):
    out = impl.prepare_inputs(*args)
    aliased = out.expanded_idx_mapping is out.idx_mapping
    out.idx_mapping = out.idx_mapping.to(torch.int32)
    if aliased:
        out.expanded_idx_mapping = out.idx_mapping
    return out
