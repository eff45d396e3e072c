"""A target that declares it has no PCP: the pcp properties skip with its reason."""

from mrv2_conformance.impl import *  # noqa: F403

del build_pcp_layout, partition_batch  # noqa: F821
UNSUPPORTED = {
    name: "this backend has no prefill context parallelism"
    for name in ("build_pcp_layout", "partition_batch")
}
