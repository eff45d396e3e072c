"""Which implementation is under test (``--target`` or ``MRV2_CONFORMANCE_TARGET``), and
loading it: any failure at import is one line naming the target."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType

from mrv2_conformance.conformance.target import Target
from mrv2_conformance.contract import TargetUnavailable, UnknownRevision, check_revision

DEFAULT_TARGET = "mrv2_conformance.impl"
TARGET_ENV_VAR = "MRV2_CONFORMANCE_TARGET"


class TargetImportError(Exception):
    """The target did not import, or declares what the suite cannot take."""


def target_name(option: str | None) -> str:
    return option or os.environ.get(TARGET_ENV_VAR) or DEFAULT_TARGET


# A target's import may take long (vLLM's takes 10-20 s here), never this long.
IMPORT_TIMEOUT_S = 600.0


def _where(exc: BaseException) -> str:
    """`` (at name, file:line)``: where the failure happened, outside the loading."""
    if getattr(exc, "names_itself", False):  # an adapter's own report of what it lacks
        return ""
    from mrv2_conformance.frames import innermost  # not at plugin import

    package = Path(__file__).resolve().parents[1]
    where = innermost(exc, (str(package / "plugin"), str(package / "conformance")))
    return f" (at {where})" if where else ""


def load_target(name: str, import_timeout: float = IMPORT_TIMEOUT_S) -> Target:
    from mrv2_conformance.plugin.timeouts import TargetTimeout

    try:
        module = _import(name, import_timeout)
    except TargetUnavailable as exc:
        return Target(name, None, unavailable=str(exc))
    except (Exception, SystemExit, TargetTimeout) as exc:  # the target's, not ours
        what = (
            f"it called sys.exit({exc.code!r}) at import"
            if isinstance(exc, SystemExit)
            else f"{type(exc).__name__}: {exc}"
        )
        raise TargetImportError(
            f"cannot import conformance target {name!r}: {what}{_where(exc)}"
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


def _import(name: str, timeout: float) -> ModuleType:
    """The target's import, ended by the per-call watchdog past ``timeout`` seconds."""
    from mrv2_conformance.conformance import deadline

    return deadline.call_once_within(timeout, name, "import", importlib.import_module, name)
