"""On the host, the input batch's "device" arrays are torch.from_numpy of their host
twins (a zero-copy host-to-device step), in real, dummy and PCP batches: idx_mapping
shares memory with idx_mapping_np. async_copy_to_gpu itself still copies."""

import numpy as np
import torch
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import dummy, pcp, prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "aliasing"


def _zero_copy(x, out=None, device=None):
    if out is None and isinstance(x, np.ndarray) and torch.device(device).type == "cpu":
        return torch.from_numpy(x)
    return impl.h2d.async_copy_to_gpu(x, out=out, device=device)


prepare_inputs = with_patches(impl.prepare_inputs, (prepare, "async_copy_to_gpu", _zero_copy))
make_dummy = with_patches(impl.make_dummy, (dummy, "async_copy_to_gpu", _zero_copy))
partition_batch = with_patches(impl.partition_batch, (pcp, "async_copy_to_gpu", _zero_copy))
