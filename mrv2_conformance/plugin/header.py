"""The run's description: the header pytest prints and the ``meta`` of the JSON report
(target, revision, what it lacks and discloses, versions, devices, profile, seed)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import platform
import subprocess
from typing import Any

import pytest
from mrv2_conformance import suite_root
from mrv2_conformance.contract import CAPABILITIES, NOT_APPLICABLE
from mrv2_conformance.plugin import reproduce
from mrv2_conformance.plugin.profiles import current_profile_name
from mrv2_conformance.plugin.session import is_xdist_controller, run
from mrv2_conformance.plugin.devices import (
    SIMULATED,
    accelerator_devices,
    device_choice,
    pinned_device,
    unavailable_reason,
)
from mrv2_conformance.plugin.targets import target
from mrv2_conformance.strategies import limits


def run_meta(config: pytest.Config, *, on_controller: bool = False) -> dict[str, Any]:
    """What the header and the report say about the run. ``on_controller``: an xdist
    controller's header lists no accelerator (each worker sees its own: the report
    lists them)."""
    from hypothesis import __version__ as hypothesis_version
    from hypothesis import settings

    seed = config.getoption("hypothesis_seed", None)
    device_type = device_choice(config)[0]
    tgt = target(config)
    # A target may describe itself (the vLLM adapter names the vLLM release).
    description = (
        f"unavailable: {tgt.unavailable}"
        if tgt.unavailable
        else getattr(tgt.module, "TARGET_DESCRIPTION", "")
    )
    revision = "" if tgt.unavailable else tgt.revision
    max_model_len = None if tgt.unavailable else tgt.max_model_len
    devices = (
        "cpu; accelerators: those each worker sees, listed in the report"
        if on_controller
        else ", ".join(["cpu", *_under_test(config, device_type)])
    )
    return {
        "target": run(config).target_name,
        "target_description": description,
        "contract_revision": revision,
        "max_model_len": max_model_len,
        "lacks": tgt.lacks,  # {} for an unavailable target (no module)
        "versions": f"python {platform.python_version()}, numpy {_version('numpy')}, "
        f"torch {_version('torch')}, hypothesis {hypothesis_version}",
        "devices": devices,
        "profile": current_profile_name(),
        "seed": str(seed)
        if seed is not None
        else (
            "derandomized"
            if settings().derandomize
            else "Hypothesis' own per property (an example database is in use)"
        ),
        "rerun": reproduce.rerun_command(config),
    }


def _under_test(config: pytest.Config, device_type: str) -> list[str]:
    """The accelerators this process tests on (the simulated device: its one device)."""
    found = accelerator_devices(device_type)
    if device_type.partition(":")[0] != SIMULATED or not found:
        return found or [f"none: {unavailable_reason(device_type)}"]
    worker = getattr(config, "workerinput", {}).get("workerid") or "gw0"
    return [f"{pinned_device(found, worker)} (simulated accelerator, docs/device.md)"]


def suite_commit() -> str:
    """The suite's git commit ("+modified" with uncommitted changes), or "" outside a
    clone (an installed wheel)."""
    root = suite_root().parent
    if not (root / ".git").exists():
        return ""
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            check=True,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return head + ("+modified" if dirty else "")


def _version(dist: str) -> str:
    """An installed distribution's version, read without importing it."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def pytest_report_header(config: pytest.Config) -> list[str]:
    # The same header serial and under xdist: the controller imports the target here
    # (before its workers start), so that it names the revision the target claims.
    meta = run_meta(config, on_controller=is_xdist_controller(config))
    where = meta["target_description"] or getattr(target(config).module, "__file__", "?")
    disclosed = getattr(target(config).module, "DISCLOSURES", [])
    note = run(config).workers_note
    return [
        f"mrv2-conformance target: {meta['target']} ({where})",
        *(
            [f"contract revision claimed: {meta['contract_revision']!r}"]
            if meta["contract_revision"]
            else []
        ),
        *(
            [
                f"prompts up to {meta['max_model_len']:,} tokens (the target's MAX_MODEL_LEN; "
                f"contexts to the int32 limit)"
            ]
            if meta.get("max_model_len")
            else []
        ),
        *(
            f"declared not implemented: {cap} ({CAPABILITIES[cap]}): {why}; its "
            f"properties are {NOT_APPLICABLE}"
            for cap, why in meta["lacks"].items()
        ),
        f"batches of up to {limits.max_batch_requests():,} requests in one step "
        "(--max-batch-requests)",
        f"versions: {meta['versions']}",
        f"devices: {meta['devices']} (accelerator type {device_choice(config)[0]!r})",
        f"hypothesis profile: {meta['profile']}, seed: {meta['seed']}",
        *(f"target discloses: {line}" for line in disclosed),
        *([f"workers: {note}"] if note else []),
    ]
