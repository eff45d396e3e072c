"""hidden_restore_idx offsets each rank by the unpadded token counts of the ranks
before it, as if the all-gather were not padded to num_tokens_after_padding."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "pcp"


def build_pcp_layout(global_batch, pcp_world_size):
    layout = impl.build_pcp_layout(global_batch, pcp_world_size)
    unpadded_starts = np.concatenate([[0], np.cumsum(layout.per_rank_num_tokens)[:-1]])
    rank, local = np.divmod(layout.hidden_restore_idx, layout.padded_num_tokens)
    layout.hidden_restore_idx = (unpadded_starts[rank] + local).astype(np.int64)
    return layout
