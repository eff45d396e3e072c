"""sort_batch_req_ids is stable only up to 16 ids (like an insertion sort that hands
over to an unstable quicksort): past that, ties come out in reverse id order."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import gather
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "ordering"


def sort_batch_req_ids(num_tokens_per_req, draft_tokens, decode_query_len):
    ids = list(num_tokens_per_req)
    if len(ids) > 16:
        ids = sorted(ids, reverse=True)
    return sorted(
        ids,
        key=lambda r: (
            not draft_tokens.get(r),
            num_tokens_per_req[r] != decode_query_len,
            num_tokens_per_req[r],
        ),
    )


gather_batch_req_state = with_patches(
    impl.gather_batch_req_state, (gather, "sort_batch_req_ids", sort_batch_req_ids)
)
prepare_inputs = with_patches(
    impl.prepare_inputs, (gather, "sort_batch_req_ids", sort_batch_req_ids)
)
