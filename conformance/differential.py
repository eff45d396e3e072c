"""One input, two implementations, the same outcome (after CuPy's
``numpy_cupy_allclose``): the reference (``impl``) and the target must both return
or both raise; raised errors must match in type (and a KeyError in its key);
returned fields must match in kind, dtype, shape and exact value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from conformance.assertions import assert_values, describe_kind
from conformance.fields import field

REFERENCE = "impl"


@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None

    def describe(self) -> str:
        if self.error is not None:
            return f"raised {type(self.error).__name__}({self.error})"
        return "returned normally"


def run(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Outcome:
    try:
        return Outcome(value=fn(*args, **kwargs))
    except Exception as exc:  # compared, not swallowed: see assert_same_outcome
        return Outcome(error=exc)


def assert_same_outcome(call: str, ref: Outcome, got: Outcome) -> bool:
    """Both raised the same kind of error (True: nothing else to compare) or both
    returned (False)."""
    if ref.error is None and got.error is None:
        return False
    assert ref.error is not None and got.error is not None, (
        f"{call}: the reference {ref.describe()}, the target {got.describe()}")
    assert type(got.error) is type(ref.error), (
        f"{call}: the reference raised {type(ref.error).__name__}({ref.error}), the target "
        f"raised {type(got.error).__name__}({got.error})")
    if isinstance(ref.error, KeyError):
        assert got.error.args == ref.error.args, (
            f"{call}: KeyError{got.error.args} from the target, KeyError{ref.error.args} "
            "from the reference (the missing request id)")
    return True


def assert_same_field(call: str, field: str, ref: Any, got: Any) -> None:
    if isinstance(ref, (torch.Tensor, np.ndarray)):
        assert type(got) is type(ref) and got.dtype == ref.dtype and got.shape == ref.shape, (
            f"{call}: {field} is {describe_kind(got)} on the target, "
            f"{describe_kind(ref)} on the reference")
        if isinstance(ref, torch.Tensor):
            assert got.device == ref.device, (
                f"{call}: {field} is on {got.device}, the reference's on {ref.device}")
        assert_values(call, f"{field} (expected: the reference's)", got, ref)
    else:
        if isinstance(ref, list):
            got = list(got)
        assert type(got) is type(ref) and got == ref, (
            f"{call}: {field} is {got!r} ({type(got).__name__}) on the target, "
            f"{ref!r} ({type(ref).__name__}) on the reference")


def assert_same_fields(call: str, ref: Any, got: Any, fields: Iterable[str]) -> None:
    for name in fields:
        assert_same_field(call, name, field(call, ref, name), field(call, got, name))
