"""Target calls that do not return: pytest-timeout's timer on every property, turned
into ``TargetTimeout`` (one line naming the target and where it was stopped) inside the
property's body, so that Hypothesis does not run the hung call again."""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from typing import Any

import pytest
from mrv2_conformance.conformance.deadline import TargetTimeout, is_timeout
from mrv2_conformance.plugin.session import hypothesis_handle

__all__ = ["TargetTimeout", "guard_timeouts", "is_hang", "is_timeout", "timeout_text"]


def guard_timeouts(item: pytest.Item, target: str, timeout: float) -> None:
    """Turn pytest-timeout's failure inside a property's body into ``TargetTimeout``,
    which ends the property at once (Hypothesis' ``inner_test`` is the documented
    place to wrap what runs per example)."""
    hyp = hypothesis_handle(item)
    if hyp is None or getattr(hyp.inner_test, "_mrv2_timeout_guard", False):
        return
    inner = hyp.inner_test

    @functools.wraps(inner)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return inner(*args, **kwargs)
        except pytest.fail.Exception as exc:
            if not is_timeout(exc):
                raise
            raise TargetTimeout(
                f"target {target} did not return within {timeout:g} s{_where(exc)}"
            ) from None

    guarded._mrv2_timeout_guard = True  # type: ignore[attr-defined]
    hyp.inner_test = guarded


def _where(exc: BaseException) -> str:
    """Where the call was stopped: its innermost frame outside pytest-timeout."""
    tb, last = exc.__traceback__, None
    while tb is not None:
        if (
            "pytest_timeout" not in tb.tb_frame.f_code.co_filename
            and "_pytest" not in tb.tb_frame.f_code.co_filename
        ):
            last = tb
        tb = tb.tb_next
    if last is None:
        return ""
    code = last.tb_frame.f_code
    return f" (stopped in {code.co_name}, {code.co_filename}:{last.tb_lineno})"


def is_hang(exc: BaseException) -> bool:
    """A target call stopped by the timer: reported as the one line ``timeout_text``."""
    return isinstance(exc, TargetTimeout) or is_timeout(exc)


def timeout_text(exc: BaseException, target: str) -> str:
    return (
        str(exc)
        if isinstance(exc, TargetTimeout)
        else f"target {target} did not return within the timeout ({exc})"
    )


def calls_dir(config: pytest.Config) -> None:
    """Where each process of the run keeps the target call it is in (inherited by xdist's
    workers; conformance/deadline.py), removed when the run ends."""
    from mrv2_conformance.conformance.deadline import CALLS_DIR_ENV

    if hasattr(config, "workerinput"):  # an xdist worker: its controller's folder
        return
    folder = tempfile.mkdtemp(prefix="mrv2-calls-")
    os.environ[CALLS_DIR_ENV] = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
