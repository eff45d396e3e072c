"""async_copy_to_gpu to cpu returns a view of the source (torch.from_numpy) instead of
a copy, so later writes to the host array show through."""

import numpy as np
import torch
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "device_host"


def async_copy_to_gpu(x, out=None, device=None):
    target = out.device if out is not None else torch.device(device)
    if out is None and target.type == "cpu":
        return torch.from_numpy(x) if isinstance(x, np.ndarray) else x
    return impl.async_copy_to_gpu(x, out=out, device=device)
