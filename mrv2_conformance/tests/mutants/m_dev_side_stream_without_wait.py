"""On an accelerator the host-to-device copies run on a side stream, and the current
stream (where the engine reads the batch) never waits for it."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.tests.mutants._device import accelerator_copy, side_stream, with_copy

FAMILY = "device_host"
DEVICE_CLASS = True


@accelerator_copy
def _copy(src, dst):
    src = src.pin_memory()
    with side_stream(dst.device):
        dst.copy_(src, non_blocking=True)
    return dst


prepare_inputs, make_dummy, partition_batch, async_copy_to_gpu = with_copy(_copy)
