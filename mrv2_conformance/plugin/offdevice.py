"""Device variants that cannot run on the simulated device because the target calls
what only CUDA has (``torch.cuda.*``, or an operator with a CUDA kernel and none for
this device): reported "not applicable on this device", naming the call's file and
line, never a silent skip and never a pass (docs/device.md, "CUDA-only calls").

Only on the simulated device: there a CUDA-only call says nothing about the port's
contract, only that the simulation cannot stand in for CUDA. On a real device the
same call is the port's failure (an NPU runner calling ``torch.cuda`` fails on the
NPU too), and it is reported as one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator
from pathlib import Path
from types import TracebackType

import pytest
from mrv2_conformance.contract import OFF_DEVICE
from mrv2_conformance.frames import exception_chain
from mrv2_conformance.plugin.devices import SIMULATED

_TORCH = f"{os.sep}torch{os.sep}"
_TORCH_CUDA = f"{os.sep}torch{os.sep}cuda{os.sep}"
# The dispatcher's refusal of an operator without a kernel for this device (the
# simulated device falls back to the CPU kernel, so an operator that has neither is
# refused as the CPU's).
_NO_KERNEL = re.compile(
    r"Could not run '(?P<op>[\w:.]+)' with arguments from the '(?:PrivateUse1|simdev|CPU)' "
    r"backend"
)


def _frames(tb: TracebackType | None) -> list[tuple[str, int, str]]:
    """(file, line, qualified name) of each frame, outermost first."""
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        out.append((code.co_filename, tb.tb_lineno, code.co_qualname))
        tb = tb.tb_next
    return out


def _shown(path: str) -> str:
    """A path as a reader finds it: inside site-packages from there, else from here."""
    p = Path(path)
    for i, part in enumerate(p.parts):
        if part in ("site-packages", "dist-packages"):
            return str(Path(*p.parts[i + 1 :]))
    try:
        return str(p.resolve().relative_to(Path.cwd()))
    except ValueError:
        return path


def cuda_only_call(exc: BaseException) -> str | None:
    """``FILE:LINE calls API``: the call outside torch that reached a CUDA-only API,
    if that is where ``exc`` (or an exception it chains) was raised."""
    for e in exception_chain(exc):
        frames = _frames(e.__traceback__)
        cuda = [i for i, f in enumerate(frames) if _TORCH_CUDA in f[0]]
        no_kernel = _NO_KERNEL.search(str(e))
        if cuda:
            first = cuda[0]
            api = "torch.cuda." + frames[first][2]
            callers = [f for f in frames[:first] if _TORCH not in f[0]]
        elif no_kernel:
            api = f"operator {no_kernel['op']} (no kernel for this device)"
            callers = [f for f in frames if _TORCH not in f[0]]
        else:
            continue
        if callers:
            file, line, _ = callers[-1]
            return f"{_shown(file)}:{line} calls {api}"
        return f"calls {api}"
    return None


def off_device_reason(device: str, call: str) -> str:
    return f"{OFF_DEVICE} ({device}): {call}, which only CUDA has"


# trylast: the innermost wrapper, so the reporter and the xfails see a skip.
@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    rep = yield
    callspec = getattr(item, "callspec", None)
    device = str(callspec.params.get("device", "")) if callspec is not None else ""
    if (
        rep.when == "call"
        and rep.failed
        and call.excinfo is not None
        and device.partition(":")[0] == SIMULATED
    ):
        found = cuda_only_call(call.excinfo.value)
        if found is not None:
            rep.outcome = "skipped"
            rep.longrepr = (str(item.path), item.location[1] or 0, off_device_reason(device, found))
    return rep
