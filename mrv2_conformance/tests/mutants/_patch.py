"""Swap a name inside a reference module for the duration of one call, so a mutant
can change one internal step and otherwise run the reference unchanged."""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import ExitStack
from types import ModuleType
from typing import Any
from unittest import mock


def with_patches(
    fn: Callable[..., Any], *patches: tuple[ModuleType, str, Any]
) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with ExitStack() as stack:
            for module, name, value in patches:
                stack.enter_context(mock.patch.object(module, name, value))
            return fn(*args, **kwargs)

    return wrapper
