"""The device module of ``simdev`` (``torch.simdev``, ``torch.get_device_module``): what
code written for ``torch.cuda`` calls, on the simulated device. Streams and events are
torch's generic ``torch.Stream`` and ``torch.Event`` over the extension's device guard."""

from __future__ import annotations

import types
from typing import Any

import torch

NAME = "simdev"


def _device(device: Any = None) -> torch.device:
    if device is None:
        return torch.device(NAME, torch.accelerator.current_device_index())
    if isinstance(device, int):
        return torch.device(NAME, device)
    dev = torch.device(device)
    if dev.type != NAME:
        raise ValueError(f"{NAME}: expected a {NAME} device, got {dev}")
    return dev if dev.index is not None else _device(None)


def make(ext: Any) -> types.ModuleType:
    """The module, over the loaded extension ``ext``."""
    from mrv2_conformance.simdevice import on_stream

    mod = types.ModuleType(f"torch.{NAME}", __doc__)

    def is_available() -> bool:
        return True

    def device_count() -> int:
        return int(ext.device_count())

    def current_device() -> int:
        return int(torch.accelerator.current_device_index())

    def set_device(device: Any) -> None:
        torch.accelerator.set_device_index(_device(device).index)

    def synchronize(device: Any = None) -> None:
        """Run every stream's queued work on the device (all of it lands)."""
        torch.accelerator.synchronize(_device(device))

    def current_stream(device: Any = None) -> torch.Stream:
        return torch.accelerator.current_stream(_device(device))

    def Stream(device: Any = None, priority: int = 0) -> torch.Stream:
        return torch.Stream(device=_device(device), priority=priority)

    def Event(enable_timing: bool = False) -> torch.Event:
        return torch.Event(device=_device(None), enable_timing=enable_timing)

    def pending(device: Any = None) -> int:
        """Queued work not yet run on the device's streams (the suite's own probe)."""
        return int(ext.pending(_device(device).index))

    for fn in (
        is_available,
        device_count,
        current_device,
        set_device,
        synchronize,
        current_stream,
        Stream,
        Event,
        pending,
    ):
        setattr(mod, fn.__name__, fn)
    for name, value in {
        "stream": on_stream,
        "is_initialized": is_available,
        "host_write_pending": ext.host_write_pending,
        "host_writes_queued": ext.host_writes_queued,
        "counters": ext.counters,
        "POISON_BYTE": ext.POISON_BYTE,
        "_extension": ext,
    }.items():
        setattr(mod, name, value)
    return mod
