"""The implementation under test as the properties call it: its interface names,
each checked for what it may change (conformance/effects.py), a missing name failing
(or, where the target declares it unsupported, skipping) the test that needs it.
Loading a target by name is the plugin's (plugin/target.py)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from mrv2_conformance.contract import DEFAULT_REVISION, INTERFACE


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
