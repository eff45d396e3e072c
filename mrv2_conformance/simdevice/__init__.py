"""``simdev``: the suite's simulated accelerator, a second memory on every machine.

A small C++ extension (``csrc/simdevice.cpp``) registered as PyTorch's PrivateUse1
backend under the name ``simdev``: device memory only copies reach, pinned host memory,
streams and events, several devices, and adversarial, deterministic timing (every
asynchronous copy runs at the latest moment its stream's order allows; until then its
destination holds poison). docs/device.md has the semantics.

``load()`` builds the extension once per torch version (cached; a second run does not
rebuild), registers it and returns the device module (``torch.simdev``). Where it
cannot be built, ``load()`` raises ``SimDeviceUnavailable`` with one line naming why.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

NAME = "simdev"
SOURCE = Path(__file__).with_name("csrc") / "simdevice.cpp"
CACHE_ENV_VAR = "MRV2_SIMDEVICE_CACHE"
DEVICES_ENV_VAR = "MRV2_SIM_DEVICES"  # read by the extension: how many devices (2-16)
_FLAGS = ["-O1"]

_module: types.ModuleType | None = None
_failure: str | None = None


class SimDeviceUnavailable(RuntimeError):
    """The simulated device cannot be built or registered here (one line: why)."""


def cache_dir() -> Path:
    """Where the build lives: one folder per torch version, Python and source."""
    import torch

    root = os.environ.get(CACHE_ENV_VAR) or Path.home() / ".cache" / "mrv2-conformance"
    digest = hashlib.sha256(SOURCE.read_bytes() + " ".join(_FLAGS).encode()).hexdigest()[:12]
    tag = f"torch-{torch.__version__}-py{sys.version_info[0]}{sys.version_info[1]}-{digest}"
    return Path(root) / "simdevice" / tag


def _one_line(exc: BaseException) -> str:
    """The cause of a failed build in one line: the compiler's first error, if any."""
    text = str(exc)
    for line in text.splitlines():
        if re.search(r"\berror\b|not found|No such file", line) and not line.startswith(
            ("FAILED", "ninja", "Error building")
        ):
            return line.strip()[:300]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[-1] if lines else 'no message'}"[:300]


def _build() -> Any:
    import torch

    if torch.utils.backend_registration._privateuse1_backend_name not in ("privateuseone", NAME):
        raise SimDeviceUnavailable(
            "PyTorch's PrivateUse1 backend is already "
            f"{torch.utils.backend_registration._privateuse1_backend_name!r} in this process"
        )
    directory = cache_dir()
    built = directory / "mrv2_simdevice.so"
    if built.exists():
        # Built before for this torch, Python and source: import it as it is (torch's
        # own up-to-date check costs a second in every process).
        import importlib.util

        spec = importlib.util.spec_from_file_location("mrv2_simdevice", built)
        assert spec is not None and spec.loader is not None
        ext = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(ext)
        return ext
    directory.mkdir(parents=True, exist_ok=True)
    import logging

    # torch warns on stderr about the compiler, and (a CUDA build) at import about the
    # missing CUDA runtime; a failure says what matters in one line instead.
    quiet_log = logging.getLogger("torch.utils.cpp_extension")
    level = quiet_log.level
    quiet_log.setLevel(logging.ERROR)
    try:
        from torch.utils import cpp_extension

        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
            return cpp_extension.load(
                name="mrv2_simdevice",
                sources=[str(SOURCE)],
                build_directory=str(directory),
                extra_cflags=_FLAGS,
                verbose=False,
            )
    except Exception as exc:  # a missing compiler or ninja, a failed build
        raise SimDeviceUnavailable(f"cannot build {SOURCE.name}: {_one_line(exc)}") from None
    finally:
        quiet_log.setLevel(level)


def load() -> types.ModuleType:
    """Build (once) and register the device; the device module ``torch.simdev``."""
    global _module, _failure
    if _module is not None:
        return _module
    if _failure is not None:
        raise SimDeviceUnavailable(_failure)
    import torch

    try:
        ext = _build()
        if torch.utils.backend_registration._privateuse1_backend_name != NAME:
            torch.utils.rename_privateuse1_backend(NAME)
        from mrv2_conformance.simdevice import module

        _module = module.make(ext)
        torch._register_device_module(NAME, _module)
        torch.utils.generate_methods_for_privateuse1_backend(for_storage=True)
    except SimDeviceUnavailable as exc:
        _failure = str(exc)
        raise
    return _module


def loaded() -> types.ModuleType | None:
    """The device module if this process loaded the device, else None (never builds)."""
    return _module


def failure() -> str | None:
    """Why ``load()`` failed in this process, or None."""
    return _failure


@contextlib.contextmanager
def on_stream(stream: Any) -> Iterator[Any]:
    """Make ``stream`` current on its device for the block (torch.simdev.stream)."""
    import torch

    device = torch.accelerator.current_device_index()  # set_stream sets the device too
    previous = torch.accelerator.current_stream(stream.device)
    torch.accelerator.set_stream(stream)
    try:
        yield stream
    finally:
        torch.accelerator.set_stream(previous)
        torch.accelerator.set_device_index(device)
