"""make_dummy ignores max_query_len: it returns a split whose longest query exceeds it."""
import impl
from impl import *  # noqa: F401,F403

FAMILY = "dummy_parity"


def make_dummy(num_reqs, num_tokens, input_buffers, max_query_len=None):
    return impl.make_dummy(num_reqs, num_tokens, input_buffers)
