"""The dummy's expanded_idx_mapping is a copy of idx_mapping, not the same tensor
(a real batch without drafts aliases them)."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "dummy_parity"


def make_dummy(*args, **kwargs):
    out = impl.make_dummy(*args, **kwargs)
    out.expanded_idx_mapping = out.idx_mapping.clone()
    return out
