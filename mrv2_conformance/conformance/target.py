"""The implementation under test as the properties call it: its interface names,
each checked for what it may change (conformance/effects.py), a missing name failing
(or, where the target declares it unsupported, skipping) the test that needs it.
Loading a target by name is the plugin's (plugin/target.py)."""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import pytest
from mrv2_conformance.contract import (
    DEFAULT_REVISION,
    INTERFACE,
    check_capabilities,
    not_applicable,
)

# The interface names only a capability uses (a target that lacks it need not define them).
NEEDS: dict[str, str] = {"build_pcp_layout": "pcp", "partition_batch": "pcp"}


class Target:
    """A target module; a missing interface name fails the test that needs it."""

    def __init__(
        self,
        name: str,
        module: ModuleType | Any | None,  # or module-like
        unavailable: str | None = None,
        check_effects: bool = True,
    ) -> None:
        self.name = name
        self.module = module
        self.unavailable = unavailable  # why it cannot run here; None when it can
        self.check_effects = check_effects  # not for the suite's own private reference

    @property
    def revision(self) -> str:
        """The contract revision the target claims (contract.REVISIONS)."""
        return getattr(self.module, "CONTRACT_REVISION", DEFAULT_REVISION)

    @property
    def max_model_len(self) -> int | None:
        """The longest prompt the target declares it can hold (``MAX_MODEL_LEN``;
        strategies/limits.py), or None: the contract's int32."""
        return getattr(self.module, "MAX_MODEL_LEN", None)

    @functools.cached_property
    def lacks(self) -> dict[str, str]:
        """The capabilities the target declares it does not implement (``LACKS``,
        contract.CAPABILITIES), checked at load."""
        lacks = check_capabilities(getattr(self.module, "LACKS", {}), f"target {self.name}")
        # The older UNSUPPORTED = {function: why}: a function only a capability uses
        # declares that capability lacking (PCP's two).
        for name, why in getattr(self.module, "UNSUPPORTED", {}).items():
            if name in NEEDS and why:
                lacks.setdefault(NEEDS[name], f"{name}: {why}")
        return lacks

    def allows(self, capability: str) -> bool:
        return capability not in self.lacks

    def __getattr__(self, attr: str) -> Any:
        cap = NEEDS.get(attr)
        if cap is not None and cap in self.lacks:
            pytest.skip(not_applicable(cap, self.lacks[cap]))
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
        from mrv2_conformance.conformance import (  # torch: not at plugin import
            deadline,
            effects,
            inflight,
        )

        wrapped = value
        if attr == "make_dummy" and "max_query_len" in self.lacks:
            wrapped = _without_max_query_len(wrapped)
        if attr in effects.CLAUSES and self.check_effects:
            # Every call the suite makes checks what the function may change
            # (conformance/effects.py).
            wrapped = effects.checked(attr, wrapped)
        if attr in inflight.RETURNING_HOST_ARRAYS and self.check_effects:
            # On the simulated device: no host result still awaits a queued copy.
            wrapped = inflight.checked(attr, wrapped)
        if self.check_effects and callable(wrapped) and not isinstance(wrapped, type):
            # A function (not a class) of the target under test, not the reference.
            wrapped = deadline.guarded(self.name, attr, wrapped)
        if wrapped is not value:
            self.__dict__[attr] = wrapped  # kept, so each wrapper is built once
        return wrapped

    def __repr__(self) -> str:
        return f"Target({self.name!r})"


def _without_max_query_len(make_dummy: Any) -> Any:
    """A target that lacks max_query_len gets None for it: only bounds that the even
    split already meets reach it (strategies draw None there), so nothing is lost."""

    def call(num_reqs: int, num_tokens: int, input_buffers: Any, max_query_len: Any = None) -> Any:
        return make_dummy(num_reqs, num_tokens, input_buffers)

    return call
