"""prepare_inputs hands out seq_lens as a copy of the buffer, not a view: right values,
but graph replay (which reads the buffer) and the batch can drift apart."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "aliasing"


def prepare_inputs(batch, table, buffers, decode_query_len):
    out = impl.prepare_inputs(batch, table, buffers, decode_query_len)
    out.seq_lens = out.seq_lens.clone()
    return out
