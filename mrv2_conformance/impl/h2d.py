"""F1.4: host-to-device copy of a host array."""

from __future__ import annotations

import numpy as np
import torch


def async_copy_to_gpu(
    x: np.ndarray | torch.Tensor,
    out: torch.Tensor | None = None,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """Copy ``x`` to ``out`` (returned) or to a new tensor on ``device``.

    numpy goes through ``torch.from_numpy`` so the dtype is kept (intp -> int64).
    To an accelerator the copy stages through pinned memory with
    ``non_blocking=True`` (the caller synchronises before reading on the host);
    to ``cpu`` it is a plain copy. The result never aliases ``x``.
    """
    if isinstance(x, np.ndarray):
        src = torch.from_numpy(np.ascontiguousarray(x))
    elif isinstance(x, torch.Tensor):
        if x.device.type != "cpu":
            raise ValueError(f"async_copy_to_gpu copies from the host; x is on {x.device}")
        src = x
    else:
        raise TypeError(f"x must be a numpy array or a CPU tensor, got {type(x).__name__}")
    if out is None:
        if device is None:
            raise ValueError("async_copy_to_gpu needs out= or device=")
        out = torch.empty(src.shape, dtype=src.dtype, device=torch.device(device))
    elif out.shape != src.shape or out.dtype != src.dtype:
        raise ValueError(
            f"out is {out.dtype} {tuple(out.shape)} but x is {src.dtype} {tuple(src.shape)}"
        )
    if out.device.type == "cpu":
        out.copy_(src)
    else:
        out.copy_(src.pin_memory(), non_blocking=True)
    return out
