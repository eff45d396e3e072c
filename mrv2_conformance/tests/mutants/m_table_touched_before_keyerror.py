"""gather_batch_req_state advances num_computed_tokens of each known id while it
walks the batch, so a KeyError midway leaves the slot table changed."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "keyerror"


def gather_batch_req_state(batch, table, decode_query_len):
    for req_id in batch.num_scheduled_tokens:
        slot = table.req_id_to_index.get(req_id)
        if slot is None:
            raise KeyError(req_id)
        table.num_computed_tokens[slot] += 1
    for req_id in batch.num_scheduled_tokens:  # undone on success only
        table.num_computed_tokens[table.req_id_to_index[req_id]] -= 1
    return impl.gather_batch_req_state(batch, table, decode_query_len)


prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
