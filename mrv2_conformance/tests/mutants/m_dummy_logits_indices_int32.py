"""The dummy batch's logits_indices is int32 (query_start_loc[1:] - 1 on the int32
buffer) while a real batch's is int64: upstream's own known deviation."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "dummy_parity"


def make_dummy(*args, **kwargs):
    out = impl.make_dummy(*args, **kwargs)
    out.logits_indices = out.query_start_loc[1:] - 1
    return out
