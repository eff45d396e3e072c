"""make_dummy ignores max_query_len: it returns a split whose longest query exceeds it."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "dummy_parity"


def make_dummy(num_reqs, num_tokens, input_buffers, max_query_len=None):
    return impl.make_dummy(num_reqs, num_tokens, input_buffers)
