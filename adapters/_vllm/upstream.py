"""The installed vLLM's MRV2 modules and what this release of them offers.

Capabilities are read from the code (signatures, attributes), not from a version
table, so a release between the ones the README lists works if its API does.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType
from typing import Any

from mrv2_conformance.adapters._vllm.environment import configure_before_import

configure_before_import()

import vllm  # noqa: E402,F401
from vllm.v1.worker.gpu import buffer_utils, input_batch, model_runner, states  # noqa: E402

# Up to 0.29.0 MRV2 copies with buffer_utils.async_copy_to_gpu(x, out, device); from
# 0.30.0 with torch_utils.async_tensor_h2d(data, device, dtype, out) (which exists
# earlier too, without ``out``, but MRV2 does not use it there).
async_tensor_h2d: Any = None
if not hasattr(buffer_utils, "async_copy_to_gpu"):
    from vllm.utils.torch_utils import async_tensor_h2d

try:
    from vllm.v1.worker.gpu import pcp_manager
except ImportError:
    pcp_manager = None

VERSION: str = metadata.version("vllm")
Runner: type = model_runner.GPUModelRunner


def _params(fn: Any) -> list[str]:
    return list(inspect.signature(fn).parameters)


@dataclass(frozen=True)
class Api:
    """What differs between the releases the adapter has met."""

    sort_takes_drafts: bool  # 3-argument sort_batch_req_ids (#51210, 0.28.0)
    has_gather: bool  # GPUModelRunner.gather_batch_req_state (0.28.0)
    prepare_takes_batch_state: bool  # prepare_inputs(so, batch_req_state, desc, loras)
    dummy_params: tuple[str, ...]  # make_dummy keyword parameters
    h2d: str  # "async_tensor_h2d" or "async_copy_to_gpu"
    pcp: ModuleType | None


def detect() -> Api:
    return Api(
        sort_takes_drafts=len(_params(model_runner.sort_batch_req_ids)) == 3,
        has_gather=hasattr(Runner, "gather_batch_req_state"),
        prepare_takes_batch_state="batch_req_state" in _params(Runner.prepare_inputs),
        dummy_params=tuple(_params(input_batch.InputBatch.make_dummy)),
        h2d="async_tensor_h2d" if async_tensor_h2d is not None else "async_copy_to_gpu",
        pcp=pcp_manager,
    )


API = detect()

__all__ = ["API", "VERSION", "Runner", "async_tensor_h2d", "buffer_utils", "input_batch",
           "model_runner", "pcp_manager", "states"]
