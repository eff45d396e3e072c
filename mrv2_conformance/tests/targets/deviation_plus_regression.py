"""A target with upstream's documented deviation (the dummy's logits_indices is int32)
and, in the same property, a regression nobody documented (the dummy's cu_num_logits
is int64): an xfails entry for the first must not absorb the second."""

import torch
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl


def make_dummy(*args, **kwargs):
    out = impl.make_dummy(*args, **kwargs)
    out.logits_indices = out.query_start_loc[1:] - 1
    out.cu_num_logits = out.cu_num_logits.to(torch.int64)
    return out
