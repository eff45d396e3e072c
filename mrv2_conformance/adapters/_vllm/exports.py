"""What a target on the vLLM core exposes (``contract.INTERFACE`` and the declarations),
for the classes ``upstream.API`` drives: vLLM's own (``adapters.vllm``) or a plugin's
(``adapters.vllm_plugin``)."""

from __future__ import annotations

import sys
from typing import Any

from mrv2_conformance.adapters._vllm import environment, interface, probe, upstream
from mrv2_conformance.adapters._vllm.slot_table import MAX_MODEL_LEN
from mrv2_conformance.contract import DEFAULT_REVISION, check_capabilities


def target_attributes(
    name: str, lacks: dict[str, str] | None = None, disclosures: list[str] | None = None
) -> dict[str, Any]:
    """The target module's attributes. Runs the import probe first (every gap it finds
    named in one ``UnknownApi``), skipping the paths of what the target lacks."""
    lacks = dict(lacks or {})
    classes = upstream.API.classes
    if classes.pcp_manager is None and "pcp" not in lacks:
        lacks["pcp"] = f"vLLM {upstream.VERSION} has no MRV2 PCPManager"
    check_capabilities(lacks, f"target {name}")
    probe.probe(lacks, name)
    attrs: dict[str, Any] = dict(
        VLLM_VERSION=upstream.VERSION,
        MAX_MODEL_LEN=MAX_MODEL_LEN,
        DISCLOSURES=[*interface.DISCLOSURES, *environment.DISCLOSED, *(disclosures or [])],
        # The causes xfails entries may require (plugin/xfails.py, CONDITIONS).
        CONDITIONS=(
            set()
            if environment.has_accelerator()
            or environment.is_host_build()
            or not _upstream_copy_runs()
            else {"accelerator build on the host"}
        ),
        LACKS=lacks,
        InputBuffers=interface.buffers_class(classes.input_buffers),
        SlotTable=interface.SlotTable,
        gather_batch_req_state=interface.gather_batch_req_state,
        prepare_inputs=interface.prepare_inputs,
        make_dummy=interface.make_dummy,
        async_copy_to_gpu=interface.async_copy_to_gpu,
        update_states=interface.update_states,
    )
    if upstream.API.sort is not None:  # else the target does not define it: its properties
        attrs["sort_batch_req_ids"] = interface.sort_batch_req_ids  # fail, naming it
    revision, source = DEFAULT_REVISION, "what a runner without PCP can claim"
    if "pcp" not in lacks:
        from mrv2_conformance.adapters._vllm import pcp

        attrs.update(build_pcp_layout=pcp.build_pcp_layout, partition_batch=pcp.partition_batch)
        revision = pcp.contract_revision()
        source = f"read from its {classes.pcp_manager.__name__}"  # type: ignore[union-attr]
    build = "" if upstream.DISTRIBUTION == "vllm" else f" ({upstream.DISTRIBUTION})"
    own = [
        f"{cls.__module__}.{cls.__qualname__}"
        for cls, base in zip(vars(classes).values(), vars(upstream.UPSTREAM).values(), strict=True)
        if isinstance(cls, type) and cls is not base
    ]
    drives = f", driving {', '.join(own)} on vLLM {upstream.VERSION}" if own else ""
    attrs.update(
        CONTRACT_REVISION=revision,
        TARGET_DESCRIPTION=(
            f"{name}{build}{drives} at {upstream.vllm.__path__[0]}, contract revision "
            f"{revision!r} ({source})"
        ),
    )
    return attrs


def _upstream_copy_runs() -> bool:
    """Whether the host-to-device copy that runs is upstream's
    ``vllm/utils/torch_utils.py::async_tensor_h2d`` (0.30.0+), the code whose host-to-host
    no-op the "accelerator build on the host" entries describe: the one the adapter calls,
    and the one each module that copies (upstream's and the driven runner's) has bound.
    A build that replaces it anywhere does not declare that cause, so its aliasing is
    reported. Before 0.30.0 those entries do not apply (True)."""
    tu = upstream.torch_utils
    if tu is None:
        return True
    fn = getattr(tu, "async_tensor_h2d", None)
    code = getattr(fn, "__code__", None)
    if code is None or not code.co_filename.replace("\\", "/").endswith(
        "vllm/utils/torch_utils.py"
    ):
        return False
    users = [upstream.model_runner, upstream.buffer_utils, upstream.pcp_manager]
    users.append(sys.modules.get(upstream.API.classes.runner.__module__))
    bound = [getattr(m, "async_tensor_h2d", fn) for m in users if m is not None]
    return upstream.API.h2d.fn is fn and all(b is fn for b in bound)


__all__ = ["target_attributes"]
