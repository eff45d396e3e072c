"""Assertion helpers whose messages name the call, the field, expected vs actual.

``call`` is a short description of the target call that produced the value, e.g.
``"prepare_inputs(batch, table, buffers, decode_query_len=2)"``.

Inside ``every_failure()`` the helpers record a failure and go on, so one property
reports every field that breaks the contract, not just the first (a documented
deviation in one field cannot hide a regression in another: see xfails.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
import torch


class ContractViolation(AssertionError):
    """One or more contract failures, one line each (``failures``)."""

    def __init__(self, failures: list[str]) -> None:
        self.failures = list(failures)
        text = (
            self.failures[0]
            if len(self.failures) == 1
            else f"{len(self.failures)} contract failures:\n"
            + "\n".join(f"- {f}" for f in self.failures)
        )
        super().__init__(text)


_collected: ContextVar[list[str] | None] = ContextVar("mrv2_collected", default=None)


def fail(message: str) -> None:
    """Report one contract failure: raise it, or record it inside ``every_failure()``."""
    bucket = _collected.get()
    if bucket is None:
        raise ContractViolation([message])
    bucket.append(message)


def failure_lines(exc: BaseException) -> list[str]:
    """The failures an exception stands for: a ContractViolation's own lines, the
    leaves of an exception group, else ``Type: message`` (a crash or bare assert)."""
    if isinstance(exc, ContractViolation):
        return list(exc.failures)
    if isinstance(exc, BaseExceptionGroup):
        return [line for sub in exc.exceptions for line in failure_lines(sub)]
    text = str(exc).split("\nReproduce with:")[0].strip()
    return [text if isinstance(exc, AssertionError) and text else f"{type(exc).__name__}: {text}"]


@contextmanager
def every_failure() -> Iterator[None]:
    """Run every check in the block, then raise all recorded failures together.
    An exception that escapes the block is kept as one more failure line."""
    if _collected.get() is not None:  # nested: the outer block reports
        yield
        return
    bucket: list[str] = []
    token = _collected.set(bucket)
    try:
        yield
    except BaseException as exc:
        _collected.reset(token)
        if not bucket or not isinstance(exc, Exception):
            raise
        raise ContractViolation(bucket + failure_lines(exc)) from exc
    _collected.reset(token)
    if bucket:
        raise ContractViolation(bucket)


def describe_kind(value: Any) -> str:
    """Type, dtype, shape (and device) of a value, for failure messages."""
    if isinstance(value, torch.Tensor):
        return f"torch.Tensor[{value.dtype}, {tuple(value.shape)}, {value.device}]"
    if isinstance(value, np.ndarray):
        return f"np.ndarray[{value.dtype}, {value.shape}]"
    return type(value).__name__


def dtype_name(dtype: Any) -> str:
    if isinstance(dtype, torch.dtype):
        return str(dtype)
    dtype = np.dtype(dtype)
    if dtype == np.dtype(np.intp):
        return f"intp ({dtype})"
    return str(dtype)


def assert_host_array(
    call: str, field: str, value: Any, dtype: Any, shape: tuple[int, ...] | None = None
) -> None:
    """``value`` is a numpy array of exactly ``dtype`` (and ``shape``)."""
    if not isinstance(value, np.ndarray):
        return fail(f"{call}: {field} must be a host numpy array, got {describe_kind(value)}")
    if value.dtype != np.dtype(dtype):
        fail(f"{call}: {field} has dtype {dtype_name(value.dtype)}, expected {dtype_name(dtype)}")
    if shape is not None and value.shape != shape:
        fail(f"{call}: {field} has shape {value.shape}, expected {shape}")


def assert_device_tensor(
    call: str,
    field: str,
    value: Any,
    dtype: torch.dtype,
    device: str | torch.device,
    shape: tuple[int, ...] | None = None,
) -> None:
    """``value`` is a torch tensor of exactly ``dtype`` on ``device`` (and ``shape``)."""
    if not isinstance(value, torch.Tensor):
        return fail(
            f"{call}: {field} must be a torch.Tensor on {device}, got {describe_kind(value)}"
        )
    if value.dtype != dtype:
        fail(f"{call}: {field} has dtype {value.dtype}, expected {dtype}")
    if value.device != torch.device(device):
        fail(f"{call}: {field} is on device {value.device}, expected {torch.device(device)}")
    if shape is not None and tuple(value.shape) != shape:
        fail(f"{call}: {field} has shape {tuple(value.shape)}, expected {shape}")


def _as_numpy(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def assert_values(call: str, field: str, actual: Any, expected: Any) -> None:
    """Same shape and exactly equal values (dtypes are the dtype helpers' business);
    the message names the first differing index."""
    a, e = _as_numpy(actual), _as_numpy(expected)
    if a.shape != e.shape:
        return fail(
            f"{call}: {field} has shape {a.shape}, expected {e.shape}\n"
            f"  actual:   {np.array2string(a, threshold=20)}\n"
            f"  expected: {np.array2string(e, threshold=20)}"
        )
    diff = np.argwhere(a != e)
    if len(diff):
        i = tuple(int(x) for x in diff[0])
        where = i[0] if len(i) == 1 else i
        fail(
            f"{call}: {field} differs at index {where} ({len(diff)} of {a.size} differ): "
            f"got {a[i].item()!r}, expected {e[i].item()!r}\n"
            f"  actual:   {np.array2string(a, threshold=20)}\n"
            f"  expected: {np.array2string(e, threshold=20)}"
        )


def assert_rank_rows(call: str, out: Any, segs: list[tuple[int, int, int]]) -> None:
    """A PCP rank's rows are its F3 segments (global row, start position, tokens), in
    order (conformance/oracle.py, ``pcp_rank_segments``)."""
    assert_values(
        call,
        "local_to_global_batch_req_idx_np",
        out.local_to_global_batch_req_idx_np,
        [s[0] for s in segs],
    )
    assert_values(
        call,
        "num_computed_tokens_np (segment start positions)",
        out.num_computed_tokens_np,
        [s[1] for s in segs],
    )
    assert_values(call, "num_scheduled_tokens", out.num_scheduled_tokens, [s[2] for s in segs])


def assert_equal(call: str, field: str, actual: Any, expected: Any) -> None:
    """Plain Python values (lists, ints, bools): equal, and of exactly the same type
    (a tuple is not a list; for lists, every element's type too)."""
    same = type(actual) is type(expected) and actual == expected
    if same and isinstance(expected, list):
        same = all(type(a) is type(e) for a, e in zip(actual, expected, strict=False))
    if not same:
        fail(
            f"{call}: {field} is {actual!r} ({type(actual).__name__}), "
            f"expected {expected!r} ({type(expected).__name__})"
        )


def assert_same_object(call: str, field: str, value: Any, other_field: str, other: Any) -> None:
    if value is not other:
        fail(
            f"{call}: {field} must be the same object as {other_field} "
            f"(it is a {'copy' if isinstance(value, torch.Tensor) else describe_kind(value)})"
        )


def assert_raises(
    call: str,
    expected: type[BaseException],
    fn: Callable[..., Any],
    *args: Any,
    match: Callable[[BaseException], str | None] | None = None,
    **kwargs: Any,
) -> BaseException:
    """``fn(*args, **kwargs)`` raises exactly ``expected`` (not a subclass, not another
    error, not nothing); ``match(exc)`` returns what else is wrong, or None."""
    try:
        result = fn(*args, **kwargs)
    except Exception as exc:
        if type(exc) is not expected:
            raise ContractViolation(
                [f"{call}: expected {expected.__name__}, got {type(exc).__name__}: {exc}"]
            ) from exc
        problem = match(exc) if match else None
        if problem:
            raise ContractViolation([f"{call}: {expected.__name__}({exc}) {problem}"]) from exc
        return exc
    raise ContractViolation(
        [(f"{call}: expected {expected.__name__}, but it returned {describe_kind(result)}")]
    )


Extent = tuple[str, int, int]


def memory_extent(value: Any) -> Extent | None:
    """(address space, first byte, end byte) of an array's elements; None when it
    holds no bytes. Host numpy arrays and CPU tensors share one address space."""
    if isinstance(value, torch.Tensor):
        if value.numel() == 0:
            return None
        space = "host" if value.is_cpu else str(value.device)
        lo = value.data_ptr()
        span = sum((s - 1) * abs(st) for s, st in zip(value.shape, value.stride(), strict=False))
        return space, lo, lo + (span + 1) * value.element_size()
    if isinstance(value, np.ndarray):
        if value.size == 0:
            return None
        lo, hi = _byte_bounds(value)
        return "host", lo, hi
    return None


# numpy 2 moved byte_bounds out of the top-level namespace.
_byte_bounds = getattr(np, "byte_bounds", None) or np.lib.array_utils.byte_bounds


def extents_overlap(a: Extent, b: Extent) -> bool:
    return a[0] == b[0] and a[1] < b[2] and b[1] < a[2]


def shares_memory(a: Any, b: Any) -> bool:
    ea, eb = memory_extent(a), memory_extent(b)
    return ea is not None and eb is not None and extents_overlap(ea, eb)


def assert_no_shared_memory(
    call: str, field: str, value: torch.Tensor, source: np.ndarray | torch.Tensor
) -> None:
    if shares_memory(value, source):
        fail(f"{call}: {field} shares memory with its source array")
