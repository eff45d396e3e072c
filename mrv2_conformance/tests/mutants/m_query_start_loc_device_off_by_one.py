"""The device query_start_loc is one more than its host twin (real, dummy and PCP
batches alike)."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import dummy, pcp, prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "device_host"
_write = prepare.write_query_start_loc  # the original, captured before any patching


def _shifted(buffers, query_start_loc_np, num_tokens):
    return _write(buffers, query_start_loc_np + np.int32(1), num_tokens)


prepare_inputs = with_patches(impl.prepare_inputs, (prepare, "write_query_start_loc", _shifted))
make_dummy = with_patches(impl.make_dummy, (dummy, "write_query_start_loc", _shifted))
partition_batch = with_patches(impl.partition_batch, (pcp, "write_query_start_loc", _shifted))
