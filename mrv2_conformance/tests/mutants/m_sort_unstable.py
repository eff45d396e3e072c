"""sort_batch_req_ids breaks ties in reverse scheduler order (not stable)."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import gather
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "ordering"


def sort_batch_req_ids(num_tokens_per_req, draft_tokens, decode_query_len):
    def key(r):
        n = num_tokens_per_req[r]
        return (not draft_tokens.get(r), n != decode_query_len, n)

    return sorted(reversed(list(num_tokens_per_req)), key=key)


gather_batch_req_state = with_patches(
    impl.gather_batch_req_state, (gather, "sort_batch_req_ids", sort_batch_req_ids)
)
prepare_inputs = with_patches(
    impl.prepare_inputs, (gather, "sort_batch_req_ids", sort_batch_req_ids)
)
