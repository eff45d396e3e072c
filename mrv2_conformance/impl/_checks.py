"""Argument validation shared by the reference functions.

Every check raises before any state is touched, so a rejected call changes nothing.
"""

from __future__ import annotations

import numbers

INT32_MAX = 2**31 - 1


def check_int(
    name: str, value: object, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """Return ``value`` as an int, or raise naming ``name`` and the bad value."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r} ({type(value).__name__})")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return value


def check_req_id(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"request id must be a str, got {value!r} ({type(value).__name__})")
    return value
