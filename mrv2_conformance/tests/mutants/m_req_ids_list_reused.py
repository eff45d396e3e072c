"""prepare_inputs keeps one req_ids list per set of input buffers and refills it every
step (saving an allocation): a batch the runner still holds, from an earlier step,
shows the request ids of the latest one."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "stateful"


class InputBuffers(impl.InputBuffers):
    def __init__(self, max_num_reqs, max_num_tokens, device):
        super().__init__(max_num_reqs, max_num_tokens, device)
        self.req_ids = []


def prepare_inputs(batch, table, buffers, decode_query_len):
    out = impl.prepare_inputs(batch, table, buffers, decode_query_len)
    buffers.req_ids[:] = out.req_ids
    out.req_ids = buffers.req_ids
    return out
