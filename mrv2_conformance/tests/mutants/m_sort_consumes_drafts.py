"""sort_batch_req_ids pops the draft entries it has looked at (mutates its argument)."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "ordering"


def sort_batch_req_ids(num_tokens_per_req, draft_tokens, decode_query_len):
    result = impl.sort_batch_req_ids(num_tokens_per_req, draft_tokens, decode_query_len)
    for r in result:
        if hasattr(draft_tokens, "pop"):
            draft_tokens.pop(r, None)
    return result
