"""Claims contract revision "0.30" but keeps "#51210"'s PCP row order."""

from mrv2_conformance.impl import *  # noqa: F403

FAMILY = "pcp"
CONTRACT_REVISION = "0.30"
