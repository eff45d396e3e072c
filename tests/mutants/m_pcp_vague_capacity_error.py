"""PCP capacity errors do not say how much was needed and how much there is."""
import impl
from impl import *  # noqa: F401,F403

FAMILY = "pcp"


def partition_batch(*args):
    try:
        return impl.partition_batch(*args)
    except RuntimeError:
        raise RuntimeError("PCP input buffers are too small") from None
