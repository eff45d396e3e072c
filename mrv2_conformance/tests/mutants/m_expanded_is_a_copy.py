"""Without drafts, a real batch's expanded_idx_mapping is a copy of idx_mapping
instead of the same tensor."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "device_host"


def prepare_inputs(*args):
    out = impl.prepare_inputs(*args)
    if out.expanded_idx_mapping is out.idx_mapping:
        out.expanded_idx_mapping = out.idx_mapping.clone()
    return out
