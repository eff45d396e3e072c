"""make_dummy clamps num_reqs into [1, num_tokens] instead of rejecting it."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "dummy_parity"


def make_dummy(num_reqs, num_tokens, input_buffers, max_query_len=None):
    num_tokens = max(num_tokens, 1)
    num_reqs = min(max(num_reqs, 1), num_tokens)
    return impl.make_dummy(num_reqs, num_tokens, input_buffers, max_query_len)
