"""The dummy's expanded_idx_mapping is a copy of idx_mapping, not the same tensor
(a real batch without drafts aliases them)."""
import impl
from impl import *  # noqa: F401,F403

FAMILY = "dummy_parity"


def make_dummy(*args, **kwargs):
    out = impl.make_dummy(*args, **kwargs)
    out.expanded_idx_mapping = out.idx_mapping.clone()
    return out
