"""seq_lens is computed in float32 (context plus query, as an attention kernel's
metadata might): exact up to 2**24 tokens, off by one past it."""

import numpy as np
from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "ordering"
_write = prepare.write_seq_lens


def _write_seq_lens(buffers, seq_lens_np):
    return _write(buffers, np.asarray(seq_lens_np, dtype=np.float32).astype(np.int32))


prepare_inputs = with_patches(impl.prepare_inputs, (prepare, "write_seq_lens", _write_seq_lens))
