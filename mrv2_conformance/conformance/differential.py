"""One input, two implementations, the same outcome (after CuPy's
``numpy_cupy_allclose``): the reference (``impl``) and the target must both return
or both raise; raised errors must match in type (and a KeyError in its key);
returned fields must match in kind, dtype, shape and exact value.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from mrv2_conformance.conformance.assertions import (
    ContractViolation,
    assert_equal,
    assert_values,
    describe_kind,
    every_failure,
    fail,
)
from mrv2_conformance.conformance.fields import field
from mrv2_conformance.conformance.reference import REFERENCE, private_reference
from mrv2_conformance.conformance.target import Target


class _AtRevision:
    """The reference with its PCP functions at one contract revision."""

    _PCP = ("build_pcp_layout", "partition_batch")

    def __init__(self, module: Any, revision: str) -> None:
        self._module, self.CONTRACT_REVISION = module, revision

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._module, name)
        return (
            functools.partial(value, revision=self.CONTRACT_REVISION)
            if name in self._PCP
            else value
        )


def reference_target(revision: str) -> Target:
    """What the target is compared with: the private copy of the reference, out of the
    target's reach (conformance/reference.py), never the ``impl`` a target can patch,
    at the contract revision the target claims."""
    return Target(
        f"{REFERENCE} (revision {revision})",
        _AtRevision(private_reference(), revision),
        check_effects=False,
    )


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


def assert_same_outcome(
    call: str, ref: Outcome, got: Outcome, missing_ids: Sequence[str] = ()
) -> bool:
    """Both raised the same kind of error (True: nothing else to compare) or both
    returned (False). A KeyError must carry the reference's key, or, when several ids
    are missing, any one of them (the CONTRACT does not fix the lookup order)."""
    if ref.error is None and got.error is None:
        return False
    if ref.error is None or got.error is None:
        raise ContractViolation(
            [(f"{call}: the reference {ref.describe()}, the target {got.describe()}")]
        )
    if type(got.error) is not type(ref.error):
        raise ContractViolation(
            [
                (
                    f"{call}: the reference raised {type(ref.error).__name__}({ref.error}), the "
                    f"target raised {type(got.error).__name__}({got.error})"
                )
            ]
        )
    if isinstance(ref.error, KeyError):
        allowed = [ref.error.args] + [(m,) for m in missing_ids]
        if got.error.args not in allowed:
            raise ContractViolation(
                [
                    (
                        f"{call}: KeyError{got.error.args} from the target, KeyError"
                        f"{ref.error.args} from the reference (a missing request id)"
                    )
                ]
            )
    return True


def assert_same_field(call: str, field: str, ref: Any, got: Any) -> None:
    if isinstance(ref, (torch.Tensor, np.ndarray)):
        if not (type(got) is type(ref) and got.dtype == ref.dtype and got.shape == ref.shape):
            return fail(
                f"{call}: {field} is {describe_kind(got)} on the target, "
                f"{describe_kind(ref)} on the reference"
            )
        if isinstance(ref, torch.Tensor) and got.device != ref.device:
            return fail(f"{call}: {field} is on {got.device}, the reference's on {ref.device}")
        assert_values(call, f"{field} (expected: the reference's)", got, ref)
    else:
        # Exact types: a tuple where the reference has a list is a difference.
        assert_equal(call, f"{field} (expected: the reference's)", got, ref)


def assert_same_fields(call: str, ref: Any, got: Any, fields: Iterable[str]) -> None:
    """Every field, every difference reported (not just the first)."""
    with every_failure():
        for name in fields:
            assert_same_field(call, name, field(call, ref, name), field(call, got, name))
