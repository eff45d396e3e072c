"""A vLLM platform plugin's MRV2 classes as a target (docs/plugins.md).

A plugin (a hardware backend, or a project like vllm-omni) subclasses vLLM's runner,
input buffers, input batch, request state or PCP manager. ``plugin_target`` points the
vLLM adapter at those classes; everything not given stays upstream's. A whole target::

    from mrv2_conformance.adapters.vllm_plugin import plugin_target

    plugin_target(
        __name__,
        "vllm-omni 0.30.0",
        runner="vllm_omni.worker_v2.omni_model_runner:OmniGPUModelRunner",
        runner_attrs={"model": None},
    )

The runner the adapter drives is an instance of the plugin's runner class, built
without its ``__init__`` (which wants an engine), so its overrides and their
``super()`` calls run as in the engine. Classes may be given as ``"module:Class"``
strings: they are imported after the adapter has configured vLLM for this machine
(which must happen before the first ``import vllm`` of the process).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from mrv2_conformance.contract import TargetUnavailable

ClassRef = type | str | None


def _load(ref: ClassRef, what: str) -> type | None:
    if ref is None or isinstance(ref, type):
        return ref
    module, sep, attr = ref.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"{what}={ref!r}: give a class or a 'module:Class' string")
    try:
        value = getattr(importlib.import_module(module), attr)
    except AttributeError:
        raise ValueError(f"{what}={ref!r}: module {module} has no {attr}") from None
    if not isinstance(value, type):
        raise ValueError(f"{what}={ref!r} is {type(value).__name__}, not a class")
    return value


def plugin_target(
    module_name: str,
    name: str,
    *,
    runner: ClassRef = None,
    input_buffers: ClassRef = None,
    input_batch: ClassRef = None,
    request_state: ClassRef = None,
    pcp_manager: ClassRef = None,
    runner_attrs: Mapping[str, Any] | None = None,
    pcp_kwargs: Mapping[str, Any] | None = None,
    lacks: Mapping[str, str] | None = None,
    disclosures: Iterable[str] = (),
) -> None:
    """Make module ``module_name`` (the caller's ``__name__``) a target that drives
    these classes on the installed vLLM.

    ``runner_attrs``: attributes the plugin's runner methods read beyond upstream's
    (the adapter's plain runner has upstream's). ``pcp_kwargs``: what the plugin's PCP
    manager takes beyond upstream's parameters. ``lacks``: capabilities the plugin
    does not implement, ``{capability: why}`` (``contract.CAPABILITIES``; their
    properties are reported not applicable). ``disclosures``: what else the target
    sets up, shown in the header and the reports."""
    if importlib.util.find_spec("vllm") is None:
        raise TargetUnavailable(f"{name}: vLLM is not installed (docs/plugins.md)")
    from mrv2_conformance.adapters._vllm import exports, upstream

    base = upstream.UPSTREAM
    given = {
        "runner": _load(runner, "runner"),
        "input_buffers": _load(input_buffers, "input_buffers"),
        "input_batch": _load(input_batch, "input_batch"),
        "request_state": _load(request_state, "request_state"),
        "pcp_manager": _load(pcp_manager, "pcp_manager"),
    }
    for field, cls in given.items():
        upstream_cls = getattr(base, field)
        if cls is not None and upstream_cls is not None and not issubclass(cls, upstream_cls):
            raise ValueError(
                f"{field}={cls.__module__}.{cls.__qualname__} is not a subclass of "
                f"vLLM's {upstream_cls.__qualname__}"
            )
    classes = upstream.Classes(
        **{field: cls or getattr(base, field) for field, cls in given.items()},
        runner_attrs=tuple((runner_attrs or {}).items()),
        pcp_kwargs=tuple((pcp_kwargs or {}).items()),
    )
    upstream.activate(classes, f"{name} on vLLM {upstream.VERSION}")
    vars(sys.modules[module_name]).update(
        exports.target_attributes(name, lacks=dict(lacks or {}), disclosures=list(disclosures))
    )


__all__ = ["plugin_target"]
