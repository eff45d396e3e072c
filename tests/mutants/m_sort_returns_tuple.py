"""sort_batch_req_ids returns a tuple of ids instead of a list."""
import impl
from impl import *  # noqa: F401,F403

FAMILY = "ordering"


def sort_batch_req_ids(num_tokens_per_req, draft_tokens, decode_query_len):
    return tuple(impl.sort_batch_req_ids(num_tokens_per_req, draft_tokens, decode_query_len))
