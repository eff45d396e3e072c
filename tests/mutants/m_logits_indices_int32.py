"""A real batch's logits_indices is int32 instead of int64."""
import torch

import impl
from impl import *  # noqa: F401,F403

FAMILY = "dtype_width"


def prepare_inputs(*args):
    out = impl.prepare_inputs(*args)
    out.logits_indices = out.logits_indices.to(torch.int32)
    return out
