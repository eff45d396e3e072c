"""The reference, except that its prepare_inputs consults the Ascend stand-in (as a
port's code would call torch_npu) and swallows what that raises: the call must still
fail, naming the stand-in."""

import contextlib
import functools

from mrv2_conformance.adapters._ascend import stand_ins
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

stand_ins.install()
import torch_npu  # noqa: E402  (recorded as an import-time access)

_format = torch_npu.npu_format_cast  # bound at import, as the ports do
DISCLOSURES = stand_ins.disclosure()


@functools.wraps(impl.prepare_inputs)
def prepare_inputs(*args, **kwargs):
    with stand_ins.guard("prepare_inputs()"):
        with contextlib.suppress(Exception):  # a port that swallows it must not pass
            _format(0)
        return impl.prepare_inputs(*args, **kwargs)
