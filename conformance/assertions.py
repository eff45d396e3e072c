"""Assertion helpers whose messages name the call, the field, expected vs actual.

``call`` is a short description of the target call that produced the value, e.g.
``"prepare_inputs(batch, table, buffers, decode_query_len=2)"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


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


def assert_host_array(call: str, field: str, value: Any, dtype: Any,
                      shape: tuple[int, ...] | None = None) -> None:
    """``value`` is a numpy array of exactly ``dtype`` (and ``shape``)."""
    assert isinstance(value, np.ndarray), (
        f"{call}: {field} must be a host numpy array, got {describe_kind(value)}")
    assert value.dtype == np.dtype(dtype), (
        f"{call}: {field} has dtype {dtype_name(value.dtype)}, expected {dtype_name(dtype)}")
    if shape is not None:
        assert value.shape == shape, (
            f"{call}: {field} has shape {value.shape}, expected {shape}")


def assert_device_tensor(call: str, field: str, value: Any, dtype: torch.dtype,
                         device: str | torch.device,
                         shape: tuple[int, ...] | None = None) -> None:
    """``value`` is a torch tensor of exactly ``dtype`` on ``device`` (and ``shape``)."""
    assert isinstance(value, torch.Tensor), (
        f"{call}: {field} must be a torch.Tensor on {device}, got {describe_kind(value)}")
    assert value.dtype == dtype, (
        f"{call}: {field} has dtype {value.dtype}, expected {dtype}")
    assert value.device == torch.device(device), (
        f"{call}: {field} is on device {value.device}, expected {torch.device(device)}")
    if shape is not None:
        assert tuple(value.shape) == shape, (
            f"{call}: {field} has shape {tuple(value.shape)}, expected {shape}")


def _as_numpy(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def assert_values(call: str, field: str, actual: Any, expected: Any) -> None:
    """Same shape and exactly equal values (dtypes are the dtype helpers' business);
    the message names the first differing index."""
    a, e = _as_numpy(actual), _as_numpy(expected)
    assert a.shape == e.shape, (
        f"{call}: {field} has shape {a.shape}, expected {e.shape}\n"
        f"  actual:   {np.array2string(a, threshold=20)}\n"
        f"  expected: {np.array2string(e, threshold=20)}")
    diff = np.argwhere(a != e)
    if len(diff):
        i = tuple(int(x) for x in diff[0])
        where = i[0] if len(i) == 1 else i
        raise AssertionError(
            f"{call}: {field} differs at index {where} ({len(diff)} of {a.size} differ): "
            f"got {a[i].item()!r}, expected {e[i].item()!r}\n"
            f"  actual:   {np.array2string(a, threshold=20)}\n"
            f"  expected: {np.array2string(e, threshold=20)}")


def assert_equal(call: str, field: str, actual: Any, expected: Any) -> None:
    """Plain Python values (lists, ints, bools): equal, and of the same type."""
    assert type(actual) is type(expected) and actual == expected, (
        f"{call}: {field} is {actual!r} ({type(actual).__name__}), "
        f"expected {expected!r} ({type(expected).__name__})")


def assert_same_object(call: str, field: str, value: Any, other_field: str,
                       other: Any) -> None:
    assert value is other, (
        f"{call}: {field} must be the same object as {other_field} "
        f"(it is a {'copy' if isinstance(value, torch.Tensor) else describe_kind(value)})")


def assert_no_shared_memory(call: str, field: str, value: torch.Tensor,
                            source: np.ndarray | torch.Tensor) -> None:
    src = torch.from_numpy(source) if isinstance(source, np.ndarray) else source
    if value.device.type != "cpu" or src.numel() == 0:
        return
    s0, s1 = src.data_ptr(), src.data_ptr() + src.numel() * src.element_size()
    v0, v1 = value.data_ptr(), value.data_ptr() + value.numel() * value.element_size()
    assert v1 <= s0 or s1 <= v0, f"{call}: {field} shares memory with its source array"
