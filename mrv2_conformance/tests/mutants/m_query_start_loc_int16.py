"""query_start_loc is summed in int16 before it is stored as int32: right for steps of
up to 32,767 tokens, wrong for vLLM's larger budgets (16,384 fits, 32,768 does not)."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import dummy, pcp, prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "ordering"


def _cumsum_with_zero(counts):
    out = np.zeros(len(counts) + 1, dtype=np.int16)
    np.cumsum(np.asarray(counts).astype(np.int16), out=out[1:])
    return out.astype(np.int32)


_patches = [(m, "cumsum_with_zero", _cumsum_with_zero) for m in (prepare, dummy, pcp)]
prepare_inputs = with_patches(impl.prepare_inputs, *_patches)
make_dummy = with_patches(impl.make_dummy, *_patches)
partition_batch = with_patches(impl.partition_batch, *_patches)
