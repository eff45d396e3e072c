"""Which implementation is under test (``--target`` or ``MRV2_CONFORMANCE_TARGET``), and
loading it: any failure at import is one line naming the target."""

from __future__ import annotations

import importlib
import os

from mrv2_conformance.conformance.target import Target
from mrv2_conformance.contract import TargetUnavailable, UnknownRevision, check_revision

DEFAULT_TARGET = "mrv2_conformance.impl"
TARGET_ENV_VAR = "MRV2_CONFORMANCE_TARGET"


class TargetImportError(Exception):
    """The target did not import, or declares what the suite cannot take."""


def target_name(option: str | None) -> str:
    return option or os.environ.get(TARGET_ENV_VAR) or DEFAULT_TARGET


def load_target(name: str) -> Target:
    try:
        module = importlib.import_module(name)
    except TargetUnavailable as exc:
        return Target(name, None, unavailable=str(exc))
    except Exception as exc:  # any import-time failure is the target's, not ours
        raise TargetImportError(
            f"cannot import conformance target {name!r}: {type(exc).__name__}: {exc}"
        ) from exc
    target = Target(name, module)
    try:
        check_revision(target.revision, f"target {name}")
    except UnknownRevision as exc:
        raise TargetImportError(str(exc)) from None
    from mrv2_conformance.strategies import limits

    try:  # the strategies keep to what the target declares it holds and implements
        limits.configure(target.max_model_len, frozenset(target.lacks))
    except ValueError as exc:
        raise TargetImportError(f"target {name}: {exc}") from None
    return target
