"""On an accelerator the copies run on a side stream, and the wait is the wrong way
round: the side stream waits for the current one (side.wait_stream(current)) instead
of the current stream waiting for the copies."""

import torch
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.tests.mutants._device import accelerator_copy, side_stream, with_copy

FAMILY = "device_host"
DEVICE_CLASS = True


@accelerator_copy
def _copy(src, dst):
    src = src.pin_memory()
    current = torch.accelerator.current_stream(dst.device)
    with side_stream(dst.device) as side:
        side.wait_stream(current)
        dst.copy_(src, non_blocking=True)
    return dst


prepare_inputs, make_dummy, partition_batch, async_copy_to_gpu = with_copy(_copy)
