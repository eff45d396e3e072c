"""gather_batch_req_state returns req_ids as a tuple (the SPEC's list[str] is what
callers extend and index-assign); prepare_inputs still gives a list."""
import impl
from impl import *  # noqa: F401,F403

FAMILY = "ordering"


def gather_batch_req_state(batch, table, decode_query_len):
    out = impl.gather_batch_req_state(batch, table, decode_query_len)
    out.req_ids = tuple(out.req_ids)
    return out
