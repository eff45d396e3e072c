"""The reference claiming contract revision "0.30" (decodes first on a PCP rank) and
implementing it: every property passes against it."""

import functools

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

CONTRACT_REVISION = "0.30"
build_pcp_layout = functools.partial(impl.build_pcp_layout, revision=CONTRACT_REVISION)
partition_batch = functools.partial(impl.partition_batch, revision=CONTRACT_REVISION)
