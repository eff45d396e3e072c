"""Host results are complete when a call returns (docs/CONTRACT.md, F1.4; docs/device.md).

The engine reads a batch's host arrays (``idx_mapping_np``, ``query_start_loc_np`` ...)
and Python values as soon as the function returns, without synchronizing. A result
that a non_blocking device-to-host copy still has to fill holds garbage then on real
hardware, now and then; on the simulated device it holds poison until the copy runs,
and the device knows which host memory its queued copies will still write. So every
call the suite makes on it checks, right at the return, that no host array of the
result is such a destination. Elsewhere (cpu, a real accelerator) this checks nothing:
there the poison would show only by chance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from mrv2_conformance.conformance.assertions import ContractViolation

# The functions whose results carry host arrays the engine reads at once.
RETURNING_HOST_ARRAYS = (
    "gather_batch_req_state",
    "prepare_inputs",
    "make_dummy",
    "async_copy_to_gpu",
    "build_pcp_layout",
    "partition_batch",
)


def still_written(result: Any, device_module: Any) -> list[str]:
    """The paths of ``result``'s host arrays that queued device work will still write."""
    from mrv2_conformance.conformance import state

    late = []
    for path, value in state.arrays({"result": result}).items():
        if isinstance(value, np.ndarray):
            base, nbytes = value.__array_interface__["data"][0], value.nbytes
        elif isinstance(value, torch.Tensor) and value.device.type == "cpu":
            base, nbytes = value.data_ptr(), value.numel() * value.element_size()
        else:
            continue
        if nbytes and device_module.host_write_pending(base, nbytes):
            late.append(path.removeprefix("result").lstrip(".") or "the result")
    return late


def checked(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``, failing a call whose host results are still in flight when it returns."""
    from mrv2_conformance import simdevice

    def call(*args: Any, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        device_module = simdevice.loaded()
        # Most calls leave no device-to-host copy queued: then nothing needs a look.
        if device_module is not None and device_module.host_writes_queued():
            late = still_written(result, device_module)
            if late:
                raise ContractViolation(
                    [
                        f"{name}() returned {field} while a non_blocking device-to-host "
                        f"copy into it was still queued: the engine reads host results "
                        f"when the call returns, before any synchronize, and would read "
                        f"what the memory held before the copy (poison on the simulated "
                        f"device); synchronize, or copy with non_blocking=False"
                        for field in late
                    ]
                )
        return result

    call.__wrapped__ = fn  # type: ignore[attr-defined]
    call.__name__ = getattr(fn, "__name__", name)
    call.__doc__ = getattr(fn, "__doc__", None)
    return call
