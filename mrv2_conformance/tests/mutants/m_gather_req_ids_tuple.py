"""gather_batch_req_state returns req_ids as a tuple (the CONTRACT's list[str] is what
callers extend and index-assign); prepare_inputs still gives a list."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "ordering"


def gather_batch_req_state(batch, table, decode_query_len):
    out = impl.gather_batch_req_state(batch, table, decode_query_len)
    out.req_ids = tuple(out.req_ids)
    return out
