"""sort_batch_req_ids returns a tuple of ids instead of a list."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "ordering"


def sort_batch_req_ids(num_tokens_per_req, draft_tokens, decode_query_len):
    return tuple(impl.sort_batch_req_ids(num_tokens_per_req, draft_tokens, decode_query_len))
