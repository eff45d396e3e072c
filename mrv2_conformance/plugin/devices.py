"""The devices under test: which accelerator a run tests besides cpu (a named one, cuda
where torch sees it, else the suite's simulated device), their indices, and the
up-front check that a run asking for one has it."""

from __future__ import annotations

import os

import pytest

DEVICE_ENV_VAR = "MRV2_CONFORMANCE_DEVICE"
SIMULATED = "simdev"  # the suite's simulated accelerator (mrv2_conformance/simdevice)
HOST_ONLY = "none"  # --device none: cpu only, no accelerator variant


def device_choice(config: pytest.Config) -> tuple[str, bool]:
    """(accelerator device type, or ``type:index``; whether the user named it). Unnamed:
    cuda where torch sees it, else the simulated device."""
    named = config.getoption("--device-type") or os.environ.get(DEVICE_ENV_VAR)
    return (named or _default_device_type()), bool(named)


def _default_device_type() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else SIMULATED


def accelerator_devices(device_type: str) -> list[str]:
    """The devices of ``device_type`` under test (``type:index`` names exactly one). The
    simulated device's index 0 stays the current device, so a tensor put on the
    current device instead of the buffers' lands on the wrong index."""
    import torch

    kind, _, index = device_type.partition(":")
    if kind == HOST_ONLY:
        return []
    if kind == SIMULATED:
        from mrv2_conformance import simdevice

        try:
            count = simdevice.load().device_count()
        except simdevice.SimDeviceUnavailable:
            return []
        found = [f"{kind}:{i}" for i in range(1, count)]
    else:
        backend = getattr(torch, kind, None)
        if backend is None or not hasattr(backend, "is_available") or not backend.is_available():
            return []
        found = [f"{kind}:{i}" for i in range(backend.device_count())]
    if index:
        return [device_type] if device_type in found else []
    return found


def unavailable_reason(device_type: str) -> str:
    """Why no device of ``device_type`` is under test, in one line."""
    import torch

    if device_type.partition(":")[0] == SIMULATED:
        from mrv2_conformance import simdevice

        return f"the simulated device is unavailable: {simdevice.failure()}"
    return f"no {device_type} device is visible to torch {torch.__version__}"


def check_devices(config: pytest.Config, markers: list[str]) -> None:
    """The up-front device checks (plugin/startup.py); the simulated device is built
    (or found in its cache) here, once, before any xdist worker needs it."""
    from mrv2_conformance.plugin import startup

    device_type, explicit = device_choice(config)
    if device_type.partition(":")[0] == SIMULATED:
        accelerator_devices(device_type)
    startup.check_devices(
        device_type,
        explicit,
        config.getoption("markexpr", ""),
        lambda: accelerator_devices(device_type),
        markers,
        lambda: unavailable_reason(device_type),
    )


def pinned_device(devices: list[str], worker_id: str) -> str:
    """xdist worker gwN -> devices[N % len(devices)]."""
    return devices[int(worker_id.removeprefix("gw")) % len(devices)]
