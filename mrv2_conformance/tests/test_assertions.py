"""The assertion helpers: each passes on a good value and, on a bad one, names the
call, the field and expected vs actual."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from mrv2_conformance.conformance.assertions import (
    ContractViolation,
    assert_device_tensor,
    assert_equal,
    assert_host_array,
    assert_no_shared_memory,
    assert_raises,
    assert_same_object,
    assert_values,
    every_failure,
    fail,
    failure_lines,
    shares_memory,
)


def fails_with(*fragments: str):
    class _Ctx:
        def __enter__(self):
            return self

        def __exit__(self, typ, exc, tb):
            assert typ is not None and issubclass(typ, AssertionError), (
                f"expected an AssertionError, got {typ}"
            )
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


def test_assert_equal_is_exact_about_containers():
    with fails_with("f(): ids is ('a',) (tuple), expected ['a'] (list)"):
        assert_equal("f()", "ids", ("a",), ["a"])
    with fails_with("f(): ids is [", "expected ['a'] (list)"):  # np.str_, not str
        assert_equal("f()", "ids", [np.str_("a")], ["a"])


def test_every_failure_reports_each_field_then_raises_once():
    with pytest.raises(ContractViolation) as info, every_failure():
        assert_values("f()", "x", [1], [2])
        assert_values("f()", "y", [1], [1])
        with every_failure():  # nested: the outer block reports
            assert_host_array("f()", "z", np.zeros(1, np.int32), np.intp)
    assert [line.split(":")[1].strip().split()[0] for line in info.value.failures] == ["x", "z"]
    assert str(info.value).startswith("2 contract failures:\n- f(): x differs")
    # A crash after a recorded failure is kept as one more line, not lost.
    with pytest.raises(ContractViolation) as info, every_failure():
        fail("f(): a is wrong")
        raise TypeError("boom")
    assert info.value.failures == ["f(): a is wrong", "TypeError: boom"]
    # Nothing wrong: nothing raised; a crash alone propagates as itself.
    with every_failure():
        assert_values("f()", "x", [1], [1])
    with pytest.raises(TypeError), every_failure():
        raise TypeError("alone")


def test_failure_lines_of_groups_and_plain_errors():
    group = BaseExceptionGroup(
        "g", [ContractViolation(["a", "b"]), KeyError("k"), AssertionError("assert x")]
    )
    assert failure_lines(group) == ["a", "b", "KeyError: 'k'", "assert x"]


def test_assert_raises_wants_exactly_the_type():
    class Sub(KeyError):
        pass

    def raises(exc):
        raise exc

    assert isinstance(assert_raises("f()", KeyError, raises, KeyError("a")), KeyError)
    with fails_with("f(): expected KeyError, got Sub: 'a'"):
        assert_raises("f()", KeyError, raises, Sub("a"))
    with fails_with("f(): expected ValueError, got IndexError: x"):
        assert_raises("f()", ValueError, raises, IndexError("x"))
    with fails_with("f(): expected ValueError, but it returned int"):
        assert_raises("f()", ValueError, lambda: 3)
    with fails_with("f(): ValueError(bad) does not name 7"):
        assert_raises(
            "f()", ValueError, raises, ValueError("bad"), match=lambda e: "does not name 7"
        )


def test_shares_memory_by_extent():
    x = np.arange(8)
    assert shares_memory(x[2:4], x) and not shares_memory(x[:2], x[2:])
    t = torch.arange(8)
    assert shares_memory(t[1:3], t) and not shares_memory(t[:4], t[4:])
    assert shares_memory(torch.from_numpy(x), x[3:])
    assert not shares_memory(torch.zeros(0), t) and not shares_memory(x, x.copy())
