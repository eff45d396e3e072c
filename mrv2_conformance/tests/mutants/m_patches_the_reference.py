"""A target that reuses the reference and patches it in place at import: its
prepare_inputs pads num_tokens_after_padding to a multiple of 8, and so does
impl.prepare_inputs, which the differential family used to compare against."""

from mrv2_conformance.impl import prepare

from mrv2_conformance import impl

FAMILY = "differential"

_original = prepare.prepare_inputs


def _padded(batch, table, buffers, decode_query_len):
    out = _original(batch, table, buffers, decode_query_len)
    out.num_tokens_after_padding = -(-out.num_tokens // 8) * 8
    return out


impl.prepare_inputs = prepare.prepare_inputs = _padded
from mrv2_conformance.impl import *  # noqa: E402, F403
