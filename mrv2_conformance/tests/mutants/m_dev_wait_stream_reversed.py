"""On an accelerator the copies run on a side stream, and the wait is the wrong way
round: the side stream waits for the current one (side.wait_stream(current)) instead
of the current stream waiting for the copies."""

import torch
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.tests.mutants._device import (
    destination,
    host_tensor,
    on_accelerator,
    reference_copy,
    side_stream,
    with_copy,
)

FAMILY = "device_host"
DEVICE_CLASS = True


def _copy(x, out=None, device=None):
    if not on_accelerator(out, device):
        return reference_copy(x, out, device)
    src = host_tensor(x).pin_memory()
    dst = destination(src, out, device)
    current = torch.accelerator.current_stream(dst.device)
    with side_stream(dst.device) as side:
        side.wait_stream(current)
        dst.copy_(src, non_blocking=True)
    return dst


prepare_inputs, make_dummy, partition_batch, async_copy_to_gpu = with_copy(_copy)
