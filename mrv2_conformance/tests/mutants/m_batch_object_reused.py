"""prepare_inputs keeps one InputBatch object per set of input buffers and overwrites
its fields every step (a persistent batch object): a batch the runner still holds,
from an earlier step, shows the latest step's fields."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "effects"


class InputBuffers(impl.InputBuffers):
    def __init__(self, max_num_reqs, max_num_tokens, device):
        super().__init__(max_num_reqs, max_num_tokens, device)
        self.batch = None


def prepare_inputs(batch, table, buffers, decode_query_len):
    out = impl.prepare_inputs(batch, table, buffers, decode_query_len)
    if buffers.batch is None:
        buffers.batch = out
        return out
    vars(buffers.batch).update(vars(out))
    return buffers.batch
