"""PCP capacity errors do not say how much was needed and how much there is."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "pcp"


def partition_batch(*args):
    try:
        return impl.partition_batch(*args)
    except RuntimeError:
        raise RuntimeError("PCP input buffers are too small") from None
