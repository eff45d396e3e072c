"""Target ``mrv2_conformance.adapters.vllm``: the installed vLLM's MRV2 input path
(docs/vllm.md). Run it in its own process (``tox -e vllm-<release>``,
``tox -m vllm``): importing vLLM changes process-wide state. It claims the contract
revision its ``PCPManager`` implements (``adapters/_vllm/pcp.contract_revision``).

Without vLLM installed, importing this raises ``TargetUnavailable`` and every
conformance test skips with the reason.
"""

from __future__ import annotations

import importlib.util

from mrv2_conformance.contract import TargetUnavailable

# Checked before anything is imported or configured: without vLLM this module
# changes nothing in the process. (vLLM present but one of its dependencies
# missing is a real import error, reported as such.)
if importlib.util.find_spec("vllm") is None:
    raise TargetUnavailable(
        "vLLM is not installed (run `tox -m vllm`, or `tox -e vllm-<release>`; docs/vllm.md)"
    )

from mrv2_conformance.adapters._vllm import interface, upstream
from mrv2_conformance.adapters._vllm.interface import (
    InputBuffers,
    SlotTable,
    async_copy_to_gpu,
    gather_batch_req_state,
    make_dummy,
    prepare_inputs,
    probe,
    sort_batch_req_ids,
    update_states,
)
from mrv2_conformance.adapters._vllm.slot_table import MAX_MODEL_LEN

VLLM_VERSION: str = upstream.VERSION
CONTRACT_REVISION = "#51210"  # what a release without PCP can claim: it never reaches F3
if upstream.pcp_manager is not None:
    from mrv2_conformance.adapters._vllm.pcp import (  # noqa: F401
        build_pcp_layout,
        contract_revision,
        partition_batch,
    )

    CONTRACT_REVISION = contract_revision()
else:  # the pcp properties skip with this reason
    UNSUPPORTED = {
        name: f"vLLM {VLLM_VERSION} has no MRV2 PCPManager"
        for name in ("build_pcp_layout", "partition_batch")
    }
probe()  # a runner attribute or API this release has and the adapter lacks: one line
TARGET_DESCRIPTION = (
    f"vLLM {VLLM_VERSION} at {upstream.vllm.__path__[0]}, contract "
    f"revision {CONTRACT_REVISION!r} (read from its PCPManager)"
)

DISCLOSURES = interface.DISCLOSURES

__all__ = [
    "CONTRACT_REVISION",
    "DISCLOSURES",
    "MAX_MODEL_LEN",
    "TARGET_DESCRIPTION",
    "VLLM_VERSION",
    "InputBuffers",
    "SlotTable",
    "async_copy_to_gpu",
    "gather_batch_req_state",
    "make_dummy",
    "prepare_inputs",
    "sort_batch_req_ids",
    "update_states",
]
