"""The assertion helpers: each passes on a good value and, on a bad one, names the
call, the field and expected vs actual."""

from __future__ import annotations

import numpy as np
import torch

from conformance.assertions import (assert_device_tensor, assert_equal, assert_host_array,
                                    assert_no_shared_memory, assert_same_object,
                                    assert_values)


def fails_with(*fragments: str):
    class _Ctx:
        def __enter__(self):
            return self

        def __exit__(self, typ, exc, tb):
            assert typ is AssertionError, f"expected an AssertionError, got {typ}"
            for frag in fragments:
                assert frag in str(exc), f"{frag!r} not in {str(exc)!r}"
            return True
    return _Ctx()


def test_assert_host_array():
    assert_host_array("f()", "idx", np.zeros(3, np.intp), np.intp, (3,))
    with fails_with("f(): idx has dtype int32, expected intp (int64)"):
        assert_host_array("f()", "idx", np.zeros(3, np.int32), np.intp)
    with fails_with("f(): idx has shape (3,), expected (4,)"):
        assert_host_array("f()", "idx", np.zeros(3, np.intp), np.intp, (4,))
    with fails_with("f(): idx must be a host numpy array, got torch.Tensor[torch.int64"):
        assert_host_array("f()", "idx", torch.zeros(3, dtype=torch.int64), np.intp)


def test_assert_device_tensor():
    t = torch.zeros(2, dtype=torch.int64)
    assert_device_tensor("f()", "idx", t, torch.int64, "cpu", (2,))
    with fails_with("f(): idx has dtype torch.int32, expected torch.int64"):
        assert_device_tensor("f()", "idx", t.int(), torch.int64, "cpu")
    with fails_with("f(): idx is on device cpu, expected meta"):
        assert_device_tensor("f()", "idx", t, torch.int64, "meta")
    with fails_with("f(): idx must be a torch.Tensor on cpu, got np.ndarray[int64"):
        assert_device_tensor("f()", "idx", np.zeros(2, np.int64), torch.int64, "cpu")
    with fails_with("has shape (2,), expected (3,)"):
        assert_device_tensor("f()", "idx", t, torch.int64, "cpu", (3,))


def test_assert_values_names_first_difference():
    assert_values("f()", "x", torch.tensor([1, 2, 3]), np.array([1, 2, 3]))
    with fails_with("f(): x differs at index 1 (2 of 4 differ): got 9, expected 2"):
        assert_values("f()", "x", [1, 9, 3, 8], [1, 2, 3, 4])
    with fails_with("f(): x has shape (2,), expected (3,)"):
        assert_values("f()", "x", [1, 2], [1, 2, 3])


def test_assert_equal_checks_type_and_value():
    assert_equal("f()", "n", 3, 3)
    with fails_with("f(): n is True (bool), expected 1 (int)"):
        assert_equal("f()", "n", True, 1)
    with fails_with("f(): ids is ['b', 'a'] (list), expected ['a', 'b'] (list)"):
        assert_equal("f()", "ids", ["b", "a"], ["a", "b"])


def test_assert_same_object_and_aliasing():
    t = torch.zeros(2)
    assert_same_object("f()", "a", t, "b", t)
    with fails_with("f(): a must be the same object as b (it is a copy)"):
        assert_same_object("f()", "a", t.clone(), "b", t)
    x = np.arange(4)
    assert_no_shared_memory("f()", "out", torch.from_numpy(x.copy()), x)
    with fails_with("f(): out shares memory with its source array"):
        assert_no_shared_memory("f()", "out", torch.from_numpy(x), x)
