"""Target ``mrv2_conformance.adapters.vllm_ascend``: vllm-ascend's ModelRunner V2 port
(``vllm_ascend/worker/v2``) on the installed vLLM (docs/vllm-ascend.md).

The plugin's own classes are driven through the vLLM adapter's core
(``adapters/_vllm``): ``NPUModelRunner.prepare_inputs`` (its override),
``AscendInputBuffers``, ``AscendInputBatch.make_dummy``, ``AscendRequestState``,
``AscendPCPManager``. Its source comes from a checkout named by
``MRV2_VLLM_ASCEND_SRC`` (the folder holding ``vllm_ascend/``); nothing is written into
it: the ``_build_info`` module its build would generate, and the bytecode of its
modules, go into a temporary overlay.
The Ascend toolkit is replaced by disclosed stand-ins (``adapters/_ascend/stand_ins``)
that fail any contract call that touches them. Run it in its own process
(``tox -e vllm-ascend-0.28.0``): importing vLLM changes process-wide state.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from mrv2_conformance.contract import TargetUnavailable

SRC_ENV_VAR = "MRV2_VLLM_ASCEND_SRC"

_src = os.environ.get(SRC_ENV_VAR)
if not _src:
    raise TargetUnavailable(
        f"{SRC_ENV_VAR} is not set: point it at a vllm-ascend checkout (the folder that "
        f"holds vllm_ascend/; docs/vllm-ascend.md)"
    )
if importlib.util.find_spec("vllm") is None:
    raise TargetUnavailable("vLLM is not installed (run `tox -e vllm-ascend-0.28.0`)")
SRC = Path(_src).resolve()
if not (SRC / "vllm_ascend" / "worker" / "v2" / "model_runner.py").is_file():
    raise ImportError(
        f"{SRC_ENV_VAR}={_src} holds no vllm_ascend/worker/v2/model_runner.py: "
        f"not a vllm-ascend checkout with the ModelRunner V2 port"
    )

from mrv2_conformance.adapters._ascend import stand_ins  # noqa: E402
from mrv2_conformance.adapters._vllm import runner, upstream  # noqa: E402  (imports vLLM first)

stand_ins.install()

# What setup.py would generate; never written into the checkout.
_overlay = Path(tempfile.mkdtemp(prefix="mrv2-vllm-ascend-overlay-"))
atexit.register(shutil.rmtree, _overlay, ignore_errors=True)
BUILD_INFO = '__device_type__ = "A2"\n__soc_version__ = "ASCEND910B1"\n'
(_overlay / "vllm_ascend").mkdir()
(_overlay / "vllm_ascend" / "_build_info.py").write_text(BUILD_INFO)
# Bytecode of the plugin's modules goes to the overlay too, not into __pycache__ folders
# of the checkout (for the whole process: the plugin imports lazily).
sys.pycache_prefix = str(_overlay / "pycache")
sys.path.insert(0, str(SRC))

import vllm_ascend  # noqa: E402

vllm_ascend.__path__.append(str(_overlay / "vllm_ascend"))
# model_runner first: the plugin's own import order (input_batch first is circular).
from vllm_ascend.worker.v2 import model_runner as npu_runner  # noqa: E402
from vllm_ascend.worker.v2 import input_batch as npu_batch  # noqa: E402

try:  # the released 0.23.0.post1 has no PCP in its port
    from vllm_ascend.worker.v2 import pcp_manager as npu_pcp
except ImportError:
    npu_pcp = None
from vllm_ascend.worker.v2 import states as npu_states  # noqa: E402


class _NoEplb:
    """The runner's expert-parallel load balancer, off: it only records the phase."""

    def set_batch_phase(self, has_prefill: bool) -> None:
        pass


class _HostEvent:
    """The event the released port's runner waits on before it reads its host copy of
    num_computed_tokens: on the host that copy is done when it returns."""

    def record(self, *args: Any) -> None:
        pass

    def synchronize(self) -> None:
        pass


def _host_num_computed_tokens(runner: Any) -> Any:
    """What the released port's ``_copy_num_computed_tokens_to_cpu`` leaves in
    ``num_computed_tokens_cpu`` after a step: the slot table's num_computed_tokens."""
    import torch

    return runner.req_states.num_computed_tokens.gpu.to("cpu", torch.int32).clone()


# What the port's methods read of the runner and its config beyond upstream's, set as
# for a plain generating model without speculative decoding, with chunked prefill (the
# V1 scheduler's default). They choose the attention state only, not an index.
_VLLM_CONFIG = SimpleNamespace(
    model_config=SimpleNamespace(runner_type="generate"),
    speculative_config=None,
    scheduler_config=SimpleNamespace(enable_chunked_prefill=True),
)
upstream.activate(
    upstream.Classes(
        runner=npu_runner.NPUModelRunner,
        input_buffers=npu_batch.AscendInputBuffers,
        input_batch=npu_batch.AscendInputBatch,
        request_state=npu_states.AscendRequestState,
        pcp_manager=npu_pcp.AscendPCPManager if npu_pcp is not None else None,
        runner_attrs=(
            ("vllm_config", _VLLM_CONFIG),
            ("eplb", _NoEplb()),
            ("speculator", None),
            ("compilation_config", SimpleNamespace(cudagraph_mode=None)),
            # Read by the released port (0.23.0.post1), not by the snapshot's.
            ("num_computed_tokens_event", _HostEvent()),
            ("num_computed_tokens_cpu", runner.Derived(_host_num_computed_tokens)),
        ),
        pcp_kwargs=(("vllm_config", _VLLM_CONFIG),),
    ),
    f"vllm-ascend ({SRC}) on vLLM {upstream.VERSION}",
)

from mrv2_conformance.adapters._vllm import interface, probe  # noqa: E402
from mrv2_conformance.adapters._vllm import pcp as _pcp  # noqa: E402


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        with stand_ins.guard(f"{fn.__name__}()"):
            return fn(*args, **kwargs)

    return call


class SlotTable(interface.SlotTable):
    """The port's ``AscendRequestState``; every call guarded."""

    def add_request(self, req_id: str, prefill_len: int, num_computed_tokens: int = 0) -> int:
        with stand_ins.guard("SlotTable.add_request()"):
            return super().add_request(req_id, prefill_len, num_computed_tokens)

    def remove_request(self, req_id: str) -> int | None:
        with stand_ins.guard("SlotTable.remove_request()"):
            return super().remove_request(req_id)

    def update_states(self, step: Any) -> None:
        with stand_ins.guard("SlotTable.update_states()"):
            super().update_states(step)


InputBuffers = interface.buffers_class(npu_batch.AscendInputBuffers)
MAX_MODEL_LEN = interface.MAX_MODEL_LEN
update_states = _guarded(interface.update_states)
if upstream.API.sort is not None:  # else vLLM sorts inline: the target does not define it
    sort_batch_req_ids = _guarded(interface.sort_batch_req_ids)
gather_batch_req_state = _guarded(interface.gather_batch_req_state)
prepare_inputs = _guarded(interface.prepare_inputs)
make_dummy = _guarded(interface.make_dummy)
async_copy_to_gpu = _guarded(interface.async_copy_to_gpu)
build_pcp_layout = _guarded(_pcp.build_pcp_layout)


def _as_upstream_buffers(buffers: Any) -> Any:
    """The port's PCP manager writes into vLLM's own ``InputBuffers`` (its base class
    creates them), whose ``query_start_loc`` has max_num_reqs + 1 rows; the port's
    runner buffers have + 2 (FIA padding). The manager gets upstream buffers that are
    views of the suite's, so every write lands in what the suite checks."""
    view: Any = object.__new__(upstream.UPSTREAM.input_buffers)
    vars(view).update(vars(buffers))
    view.query_start_loc = buffers.query_start_loc[: buffers.max_num_reqs + 1]
    return view


@_guarded
def partition_batch(
    global_batch: Any, pcp_world_size: int, pcp_rank: int, input_buffers: Any
) -> Any:
    return _pcp.partition_batch(
        global_batch, pcp_world_size, pcp_rank, _as_upstream_buffers(input_buffers)
    )


LACKS = {} if npu_pcp is not None else {"pcp": "this vllm-ascend's port has no PCP manager"}
with stand_ins.guard("the import-time probe"):
    probe.probe(LACKS, who=f"vllm-ascend ({SRC}) on vLLM {upstream.VERSION}")
    CONTRACT_REVISION = _pcp.contract_revision() if npu_pcp is not None else "#51210"

VLLM_VERSION = upstream.VERSION
TARGET_DESCRIPTION = (
    f"vllm-ascend at {SRC} (ModelRunner V2 port) on vLLM {VLLM_VERSION}, "
    f"contract revision {CONTRACT_REVISION!r}"
)
DISCLOSURES = [
    *interface.DISCLOSURES,
    *stand_ins.disclosure(),
    f"generated, not from the checkout: vllm_ascend/_build_info.py ({BUILD_INFO.strip()!r}), "
    f"in a temporary overlay",
    "runner attributes set by the adapter: vllm_config (generate, no speculative config, "
    "chunked prefill), eplb (no-op), speculator None; for the released port, "
    "num_computed_tokens_event (no-op: host copies are done when they return) and "
    "num_computed_tokens_cpu (a host copy of the slot table's num_computed_tokens, what "
    "its post-step copy leaves)",
    "PCP local buffers: vLLM's InputBuffers as views of the suite's AscendInputBuffers "
    "(query_start_loc's first max_num_reqs + 1 rows), as the port's PCPManager allocates",
]

__all__ = [
    "CONTRACT_REVISION",
    "DISCLOSURES",
    "MAX_MODEL_LEN",
    "TARGET_DESCRIPTION",
    "VLLM_VERSION",
    "InputBuffers",
    "SlotTable",
    "async_copy_to_gpu",
    "build_pcp_layout",
    "gather_batch_req_state",
    "make_dummy",
    "partition_batch",
    "prepare_inputs",
    "sort_batch_req_ids",
    "update_states",
]
