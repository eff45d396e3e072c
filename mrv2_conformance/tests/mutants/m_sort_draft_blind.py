"""The vLLM 0.27.1 order: key (num != decode_query_len, num), no drafts-first group."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import gather
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "ordering"


def sort_batch_req_ids(num_tokens_per_req, draft_tokens, decode_query_len):
    return sorted(
        num_tokens_per_req,
        key=lambda r: (num_tokens_per_req[r] != decode_query_len, num_tokens_per_req[r]),
    )


gather_batch_req_state = with_patches(
    impl.gather_batch_req_state, (gather, "sort_batch_req_ids", sort_batch_req_ids)
)
prepare_inputs = with_patches(
    impl.prepare_inputs, (gather, "sort_batch_req_ids", sort_batch_req_ids)
)
