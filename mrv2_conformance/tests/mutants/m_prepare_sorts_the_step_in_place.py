"""prepare_inputs puts the step's num_scheduled_tokens into batch order in place (an
"optimisation": later lookups walk the dict in order): the engine's step changes
under it."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "effects"


def prepare_inputs(batch, table, buffers, decode_query_len):
    out = impl.prepare_inputs(batch, table, buffers, decode_query_len)
    num = batch.num_scheduled_tokens
    ordered = [(r, num[r]) for r in out.req_ids]
    num.clear()
    num.update(ordered)
    return out
