"""A real batch's logits_indices is int32 instead of int64."""

import torch
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "dtype_width"


def prepare_inputs(*args):
    out = impl.prepare_inputs(*args)
    out.logits_indices = out.logits_indices.to(torch.int32)
    return out
