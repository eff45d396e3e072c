"""The dummy batch uses one zeros array for num_computed_tokens_np, prefill_len_np
and num_computed_prefill_tokens_np: same values and form as a real batch, but three
fields alias one another (a real batch's are three arrays)."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "aliasing"


def make_dummy(num_reqs, num_tokens, buffers, max_query_len=None):
    out = impl.make_dummy(num_reqs, num_tokens, buffers, max_query_len)
    out.prefill_len_np = out.num_computed_prefill_tokens_np = out.num_computed_tokens_np
    return out
