"""Device-class mutants: the reference with one accelerator-only step done wrong.

Each such mutant changes only what runs where the device is not the host (the branch
a CUDA, NPU or XPU port takes), so a host-only run (``cpu``) cannot tell it from the
reference, and only a second memory with its own timing (the simulated device,
docs/device.md) shows it. ``DEVICE_CLASS = True`` marks them for
tests/test_negative_controls.py, which checks both facts."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch
from mrv2_conformance.impl import dummy, h2d, pcp, prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

Copy = Callable[..., torch.Tensor]


def with_copy(copy: Copy) -> tuple[Any, Any, Any, Copy]:
    """(prepare_inputs, make_dummy, partition_batch, async_copy_to_gpu) of the
    reference, every host-to-device copy of theirs made by ``copy``."""
    patches = [(m, "async_copy_to_gpu", copy) for m in (prepare, dummy, pcp)]
    return (
        with_patches(impl.prepare_inputs, *patches),
        with_patches(impl.make_dummy, *patches),
        with_patches(impl.partition_batch, *patches),
        copy,
    )


def on_accelerator(out: torch.Tensor | None, device: Any) -> bool:
    target = out.device if out is not None else torch.device(device)
    return target.type != "cpu"


def host_tensor(x: np.ndarray | torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x)) if isinstance(x, np.ndarray) else x


def destination(src: torch.Tensor, out: torch.Tensor | None, device: Any) -> torch.Tensor:
    return out if out is not None else torch.empty(src.shape, dtype=src.dtype, device=device)


def reference_copy(x: Any, out: Any = None, device: Any = None) -> torch.Tensor:
    return h2d.async_copy_to_gpu(x, out=out, device=device)


def accelerator_copy(step: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> Copy:
    """A copy that is the reference's to the host and ``step(src, dst)`` to an
    accelerator: ``src`` the host tensor of ``x``, ``dst`` ``out`` or a new tensor
    on ``device``; ``step`` returns the result. A mutant writes only its wrong step."""

    def copy(x: Any, out: Any = None, device: Any = None) -> torch.Tensor:
        if not on_accelerator(out, device):
            return reference_copy(x, out, device)
        src = host_tensor(x)
        return step(src, destination(src, out, device))

    return copy


@contextlib.contextmanager
def side_stream(device: torch.device) -> Iterator[torch.Stream]:
    """A new stream of ``device``, current for the block (then the old one and the old
    current device again)."""
    index = torch.accelerator.current_device_index()
    previous = torch.accelerator.current_stream(device)
    side = torch.Stream(device=device)
    torch.accelerator.set_stream(side)
    try:
        yield side
    finally:
        torch.accelerator.set_stream(previous)
        torch.accelerator.set_device_index(index)
