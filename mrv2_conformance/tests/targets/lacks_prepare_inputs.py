"""A target that is the reference minus ``prepare_inputs`` (target-loading tests)."""

from mrv2_conformance.impl import (  # noqa: F401
    InputBuffers,
    SlotTable,
    async_copy_to_gpu,
    build_pcp_layout,
    gather_batch_req_state,
    make_dummy,
    partition_batch,
    sort_batch_req_ids,
)
