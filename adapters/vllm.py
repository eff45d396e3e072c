"""Target ``mrv2_conformance.adapters.vllm``: the installed vLLM's MRV2 input path
(README, "vLLM as a target"). Run it in its own process (``tox -e vllm-0.34.0``,
``tox -e vllm-0.27.1``): importing vLLM changes process-wide state.

Without vLLM installed, importing this raises ``TargetUnavailable`` and every
conformance test skips with the reason.
"""

from __future__ import annotations

import importlib.util

from mrv2_conformance.conformance.target import TargetUnavailable

# Checked before anything is imported or configured: without vLLM this module
# changes nothing in the process. (vLLM present but one of its dependencies
# missing is a real import error, reported as such.)
if importlib.util.find_spec("vllm") is None:
    raise TargetUnavailable(
        "vLLM is not installed (run `tox -e vllm-0.34.0` or `tox -e vllm-0.27.1`; README, "
        "'vLLM as a target')")

from mrv2_conformance.adapters._vllm import upstream
from mrv2_conformance.adapters._vllm.interface import (
    InputBuffers,
    SlotTable,
    async_copy_to_gpu,
    gather_batch_req_state,
    make_dummy,
    prepare_inputs,
    sort_batch_req_ids,
)

VLLM_VERSION: str = upstream.VERSION
if upstream.pcp_manager is not None:
    from mrv2_conformance.adapters._vllm.pcp import build_pcp_layout, partition_batch  # noqa: F401
else:  # the pcp properties skip with this reason
    UNSUPPORTED = {name: f"vLLM {VLLM_VERSION} has no MRV2 PCPManager"
                   for name in ("build_pcp_layout", "partition_batch")}
TARGET_DESCRIPTION = f"vLLM {VLLM_VERSION} at {upstream.vllm.__path__[0]}"

__all__ = ["TARGET_DESCRIPTION", "VLLM_VERSION", "InputBuffers", "SlotTable",
           "async_copy_to_gpu", "gather_batch_req_state", "make_dummy", "prepare_inputs",
           "sort_batch_req_ids"]
