"""A target that is the reference minus ``prepare_inputs`` (target-loading tests)."""

from impl import (InputBuffers, SlotTable, async_copy_to_gpu, build_pcp_layout,  # noqa: F401
                  gather_batch_req_state, make_dummy, partition_batch, sort_batch_req_ids)
