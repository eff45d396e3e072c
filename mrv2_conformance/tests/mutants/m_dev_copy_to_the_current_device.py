"""On an accelerator async_copy_to_gpu(x, device=d) allocates on the device type alone
(torch.device(d.type)), i.e. on the current device, not on d's index."""

import torch
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.tests.mutants._device import on_accelerator, reference_copy, with_copy

FAMILY = "device_host"
DEVICE_CLASS = True


def _copy(x, out=None, device=None):
    if out is None and on_accelerator(out, device):
        device = torch.device(torch.device(device).type)
    return reference_copy(x, out, device)


prepare_inputs, make_dummy, partition_batch, async_copy_to_gpu = with_copy(_copy)
