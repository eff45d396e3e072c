"""PCP rows in revision "0.30"'s order (decodes first) while the target claims the
default revision "#51210": a later revision's behaviour is not conformance to the one
declared."""

import functools

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "pcp"
build_pcp_layout = functools.partial(impl.build_pcp_layout, revision="0.30")
partition_batch = functools.partial(impl.partition_batch, revision="0.30")
