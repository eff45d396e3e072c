"""The implementation under test: chosen by ``--target`` or ``MRV2_CONFORMANCE_TARGET``."""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

import pytest
from mrv2_conformance.conformance import revisions

DEFAULT_TARGET = "mrv2_conformance.impl"
TARGET_ENV_VAR = "MRV2_CONFORMANCE_TARGET"


# The names the suite calls on a target (README: "Testing your implementation").
INTERFACE: tuple[str, ...] = (
    "SlotTable",
    "sort_batch_req_ids",
    "gather_batch_req_state",
    "async_copy_to_gpu",
    "InputBuffers",
    "prepare_inputs",
    "make_dummy",
    "build_pcp_layout",
    "partition_batch",
    "update_states",
)


class TargetImportError(Exception):
    pass


class TargetUnavailable(Exception):
    """Raised by a target module at import when it cannot run here (e.g. the library
    it adapts is not installed): every test that needs the target skips with this
    message, instead of the run stopping."""


class Target:
    """A target module; a missing interface name fails the test that needs it."""

    def __init__(self, name: str, module: ModuleType | Any | None,  # or module-like
                 unavailable: str | None = None, check_effects: bool = True) -> None:
        self.name = name
        self.module = module
        self.unavailable = unavailable  # why it cannot run here; None when it can
        self.check_effects = check_effects  # not for the suite's own private reference

    @property
    def revision(self) -> str:
        """The contract revision the target claims (conformance/revisions.py)."""
        return getattr(self.module, "CONTRACT_REVISION", revisions.DEFAULT)

    @property
    def max_model_len(self) -> int | None:
        """The longest prompt the target declares it can hold (``MAX_MODEL_LEN``;
        strategies/limits.py), or None: the contract's int32."""
        return getattr(self.module, "MAX_MODEL_LEN", None)

    def __getattr__(self, attr: str) -> Any:
        try:
            value = getattr(self.module, attr)
        except AttributeError:
            if attr not in INTERFACE:
                raise
            # A target declares what it cannot offer (e.g. a release without PCP) in
            # UNSUPPORTED = {name: reason}: those tests skip; any other gap fails.
            reason = getattr(self.module, "UNSUPPORTED", {}).get(attr)
            if reason:
                pytest.skip(f"target {self.name} does not support {attr}: {reason}")
            pytest.fail(f"target {self.name} does not define {attr}", pytrace=False)
        from mrv2_conformance.conformance import effects  # torch: not at plugin import

        if attr in effects.CLAUSES and self.check_effects:
            # Every call the suite makes checks what the function may change
            # (conformance/effects.py); kept, so the wrapper is built once.
            value = effects.checked(attr, value)
            self.__dict__[attr] = value
        return value

    def __repr__(self) -> str:
        return f"Target({self.name!r})"


def target_name(option: str | None) -> str:
    return option or os.environ.get(TARGET_ENV_VAR) or DEFAULT_TARGET


def load_target(name: str) -> Target:
    try:
        module = importlib.import_module(name)
    except TargetUnavailable as exc:
        return Target(name, None, unavailable=str(exc))
    except Exception as exc:  # any import-time failure is the target's, not ours
        raise TargetImportError(
            f"cannot import conformance target {name!r}: {type(exc).__name__}: {exc}") from exc
    target = Target(name, module)
    try:
        revisions.check(target.revision, f"target {name}")
    except revisions.UnknownRevision as exc:
        raise TargetImportError(str(exc)) from None
    from mrv2_conformance.strategies import limits

    try:  # the strategies keep prompts within what the target declares it holds
        limits.configure(target.max_model_len)
    except ValueError as exc:
        raise TargetImportError(f"target {name}: {exc}") from None
    return target
