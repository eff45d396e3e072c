"""The reference, except that on an accelerator its host-to-device copies record their
work on ``torch.cuda.current_stream()``, as a CUDA runner does: on the simulated device
that call has no stand-in, so its device variants are not applicable there, named by
this file's line; its cpu variants pass."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.tests.mutants._device import on_accelerator, reference_copy, with_copy

import torch


def _copy(x, out=None, device=None):
    if on_accelerator(out, device):
        torch.cuda.current_stream()  # the CUDA-only call: this line is named
    return reference_copy(x, out, device)


prepare_inputs, make_dummy, partition_batch, async_copy_to_gpu = with_copy(_copy)
