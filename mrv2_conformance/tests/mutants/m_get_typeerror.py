"""The pre-#51210 lookup: map(dict.get, ids) into np.fromiter, so a missing id
reaches numpy as None and surfaces as TypeError instead of KeyError."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "keyerror"


def gather_batch_req_state(batch, table, decode_query_len):
    req_ids = impl.sort_batch_req_ids(
        batch.num_scheduled_tokens, batch.scheduled_spec_decode_tokens, decode_query_len
    )
    np.fromiter(map(table.req_id_to_index.get, req_ids), dtype=np.intp, count=len(req_ids))
    return impl.gather_batch_req_state(batch, table, decode_query_len)


prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
