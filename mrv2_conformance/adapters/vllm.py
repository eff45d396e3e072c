"""Target ``mrv2_conformance.adapters.vllm``: the installed vLLM's MRV2 input path
(docs/vllm.md). Run it in its own process (``tox -e vllm-<release>``,
``tox -m vllm``): importing vLLM changes process-wide state. It claims the contract
revision its ``PCPManager`` implements (``adapters/_vllm/pcp.contract_revision``). A
plugin's subclasses of vLLM's classes are a target through ``adapters.vllm_plugin``.

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

from mrv2_conformance.adapters._vllm import exports, upstream

# The names the suite calls (contract.INTERFACE) and the declarations, for upstream's
# own classes; a release without PCPManager declares it lacks PCP. The import probe runs
# here: everything the adapter misses in this release is named in one message.
globals().update(exports.target_attributes(f"vLLM {upstream.VERSION}"))
