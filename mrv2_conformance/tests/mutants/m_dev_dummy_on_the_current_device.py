"""On an accelerator make_dummy builds expanded_local_pos on the device type alone
(the current device), not on the buffers' device index."""

import dataclasses

import torch
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "dummy_parity"
DEVICE_CLASS = True


def make_dummy(num_reqs, num_tokens, input_buffers, max_query_len=None):
    out = impl.make_dummy(num_reqs, num_tokens, input_buffers, max_query_len)
    if input_buffers.device.type == "cpu":
        return out
    local = torch.zeros(num_reqs, dtype=torch.int32, device=input_buffers.device.type)
    return dataclasses.replace(out, expanded_local_pos=local)
