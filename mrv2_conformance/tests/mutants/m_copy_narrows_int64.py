"""async_copy_to_gpu narrows int64 (intp) sources to int32 on the device."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "dtype_width"


def async_copy_to_gpu(x, out=None, device=None):
    if isinstance(x, np.ndarray) and x.dtype == np.int64 and out is None:
        x = x.astype(np.int32)
    return impl.async_copy_to_gpu(x, out=out, device=device)
