"""On an accelerator the copies run on a side stream whose event the current stream
waits for, but the event is recorded before the copy is queued: the wait orders
nothing."""

import torch
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.tests.mutants._device import accelerator_copy, side_stream, with_copy

FAMILY = "device_host"
DEVICE_CLASS = True


@accelerator_copy
def _copy(src, dst):
    src = src.pin_memory()
    current = torch.accelerator.current_stream(dst.device)
    event = torch.Event(device=dst.device)
    with side_stream(dst.device) as side:
        event.record(side)
        dst.copy_(src, non_blocking=True)
    current.wait_event(event)
    return dst


prepare_inputs, make_dummy, partition_batch, async_copy_to_gpu = with_copy(_copy)
