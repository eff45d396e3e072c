"""On an accelerator async_copy_to_gpu(x, device=d) returns its pinned host staging
tensor instead of a device tensor: a host alias posing as the device result."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.tests.mutants._device import (
    host_tensor,
    on_accelerator,
    reference_copy,
    with_copy,
)

FAMILY = "device_host"
DEVICE_CLASS = True


def _copy(x, out=None, device=None):
    if out is None and on_accelerator(out, device):
        return host_tensor(x).pin_memory()
    return reference_copy(x, out, device)


prepare_inputs, make_dummy, partition_batch, async_copy_to_gpu = with_copy(_copy)
