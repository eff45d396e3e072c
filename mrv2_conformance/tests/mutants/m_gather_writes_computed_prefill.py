"""gather_batch_req_state refreshes the table's num_computed_prefill_tokens of the
gathered slots from num_computed_tokens (without the min with prefill_len): it writes
the table it only reads, and a decode past its prompt reads as more prefill done than
the prompt has."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "effects"


def gather_batch_req_state(batch, table, decode_query_len):
    state = impl.gather_batch_req_state(batch, table, decode_query_len)
    table.num_computed_prefill_tokens[state.idx_mapping_np] = table.num_computed_tokens[
        state.idx_mapping_np
    ]
    return state


prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
