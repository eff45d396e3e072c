"""Deep, exact snapshots of arbitrary values, to prove that something was not changed.

``freeze(value)`` turns everything reachable from ``value`` into one nested, immutable
token: containers with their order, arrays and tensors byte for byte, plain values with
their exact types (``1``, ``True`` and ``np.int64(1)`` differ), the attributes of
objects, dataclasses and ``__slots__`` classes. Two tokens compare with ``==``; only
when they differ does ``difference(before, after)`` walk them to name the first path
that changed, in words. Unlike ``conformance.state``, which compares the persistent
arrays of a slot table or input buffers by identity, a frozen value compares
*contents*: a dict whose entries were reordered, a list cleared and refilled in
another order, an attribute that now holds other bytes, a set that lost an element.

Plain dicts, lists and tuples (the scheduler step's containers) are frozen in one
C-level pass each: every call the suite makes freezes its read-only arguments twice.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Collection
from types import FunctionType, MethodType, ModuleType
from typing import Any

import numpy as np
import torch

Token = tuple[Any, ...]
_PLAIN = frozenset({type(None), bool, int, float, complex, str, bytes})
_OPAQUE = (ModuleType, type, FunctionType, MethodType, torch.device, torch.dtype, np.dtype)
MAX_DEPTH = 6
SKIPPED: Token = ("skipped",)


def _tensor_bytes(t: torch.Tensor) -> bytes:
    if t.is_cpu:
        try:  # a numpy view of the tensor's memory: no torch ops
            return t.numpy().tobytes()
        except (TypeError, RuntimeError):  # bfloat16 and the like; requires_grad
            pass
    flat = t.detach().reshape(-1).contiguous()
    if flat.numel() == 0:
        return b""
    return flat.view(torch.uint8).cpu().numpy().tobytes()


def _tensor_token(t: torch.Tensor) -> Token:
    # The device only where it is not the host (building a torch.device costs more
    # than the rest of a small tensor's token).
    return ("Tensor", t.dtype, t.shape, None if t.is_cpu else t.device, _tensor_bytes(t))


def freeze(value: Any, skip: Collection[int] = ()) -> Token:
    """The token of ``value``. ``skip``: ids of objects left out (fields that follow
    a persistent buffer and so may change)."""
    seen: dict[int, int] = {}

    def visit(v: Any, depth: int) -> Token:
        t = type(v)
        if t in _PLAIN:
            return (t, v)
        key = id(v)
        if key in seen:  # the same object again: that it is the same must hold
            return ("same", seen[key])
        if key in skip:
            return SKIPPED
        seen[key] = len(seen)
        if t is np.ndarray:
            return ("ndarray", v.dtype.str, v.shape, v.tobytes())
        if t is torch.Tensor:
            return _tensor_token(v)
        if t is dict or t is list or t is tuple:
            values = v.values() if t is dict else v
            types = tuple(map(type, values))
            if _PLAIN.issuperset(types):
                return (t, tuple(v.items()) if t is dict else tuple(v), types)
            if depth >= MAX_DEPTH:
                return ("opaque", t.__qualname__, key)
            if t is dict:
                return (t, tuple(v), tuple([visit(x, depth + 1) for x in v.values()]), None)
            return (t, tuple([visit(x, depth + 1) for x in v]), None)
        fields = _dataclass_fields(t)
        if fields is not None and depth < MAX_DEPTH:
            # The common object, a dataclass whose attributes are its fields (a batch,
            # a step): plain values inline, without a call each.
            attrs = getattr(v, "__dict__", None)
            if attrs is not None and tuple(attrs) == fields:
                return (
                    "object",
                    t.__qualname__,
                    fields,
                    tuple(
                        [
                            (tx, x) if (tx := type(x)) in _PLAIN else visit(x, depth + 1)
                            for x in attrs.values()
                        ]
                    ),
                )
        return _other(v, t, key, depth, visit)

    return visit(value, 0)


def _other(v: Any, t: type, key: int, depth: int, visit: Any) -> Token:
    """Everything but plain values, exact arrays, tensors, dicts, lists and tuples."""
    if isinstance(v, np.generic):
        return (t, v.item())
    if isinstance(v, np.ndarray):
        return ("ndarray", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, torch.Tensor):
        return _tensor_token(v)
    if isinstance(v, (set, frozenset)):
        return (t, frozenset(v))
    if isinstance(v, _OPAQUE) or depth >= MAX_DEPTH:
        return ("opaque", t.__qualname__, key)
    if isinstance(v, (dict, list, tuple)):  # subclasses (namedtuples, ...): generic
        items = list(v.items()) if isinstance(v, dict) else list(enumerate(v))
        return (
            "container",
            t.__qualname__,
            tuple(repr(k) for k, _ in items),
            tuple([visit(x, depth + 1) for _, x in items]),
        )
    attrs = _attributes(v)
    return (
        "object",
        t.__qualname__,
        tuple([n for n, _ in attrs]),
        tuple([visit(x, depth + 1) for _, x in attrs]),
    )


class Probe:
    """A fast check that an object still holds what it held: the identity of each of
    its attributes, the bytes, shape and dtype of each array among them, and the token
    of anything else. ``holds()`` True means its token would be unchanged, up to which
    nested objects are the same one (values are what a result must keep); False means
    that only ``freeze`` can tell. It saves building the token of a result that is
    checked after every step of a long run."""

    __slots__ = ("arrays", "ids", "names", "others", "type", "value")

    def __init__(self, value: Any, skip: Collection[int] = ()) -> None:
        attrs = value.__dict__
        self.value, self.type = value, type(value)
        self.names, self.ids = tuple(attrs), tuple(map(id, attrs.values()))
        self.arrays: list[tuple[Any, ...]] = []
        self.others: list[tuple[Any, Token]] = []
        for x in attrs.values():
            t = type(x)
            if t in _PLAIN or id(x) in skip:
                continue
            if t is np.ndarray:
                self.arrays.append((x, x, x.shape, x.dtype, None, x.tobytes()))
                continue
            if t is torch.Tensor and x.is_cpu:
                try:
                    view = x.numpy()
                except (TypeError, RuntimeError):
                    view = None
                if view is not None:
                    self.arrays.append(
                        (x, view, x.shape, x.dtype, (x.data_ptr(), x.stride()), view.tobytes())
                    )
                    continue
            self.others.append((x, freeze(x)))

    def holds(self) -> bool:
        attrs = getattr(self.value, "__dict__", None)
        if (
            type(self.value) is not self.type
            or attrs is None
            or tuple(attrs) != self.names
            or tuple(map(id, attrs.values())) != self.ids
        ):
            return False
        for x, raw, shape, dtype, where, data in self.arrays:
            if (
                x.shape != shape
                or x.dtype != dtype
                or (where is not None and (x.data_ptr(), x.stride()) != where)
                or raw.tobytes() != data
            ):
                return False
        return all(freeze(x) == token for x, token in self.others)


def _fields_of(t: Any) -> tuple[str, ...] | None:
    return tuple(f.name for f in dataclasses.fields(t)) if dataclasses.is_dataclass(t) else None


# Read once per class (a cache function: the fingerprint sees no state).
_dataclass_fields: Callable[[type], tuple[str, ...] | None] = functools.cache(_fields_of)


def _attributes(v: Any) -> list[tuple[str, Any]]:
    fields = _dataclass_fields(type(v))
    if fields is not None:
        attrs = [(n, getattr(v, n)) for n in fields]
        extra = getattr(v, "__dict__", None)
        if extra is not None and len(extra) != len(fields):  # set after construction
            attrs += [(k, x) for k, x in extra.items() if k not in fields]
        return attrs
    if hasattr(v, "__dict__"):
        return list(vars(v).items())
    slots = [s for cls in type(v).__mro__ for s in getattr(cls, "__slots__", ())]
    return [(s, getattr(v, s)) for s in slots if hasattr(v, s)]


def _describe(token: Token) -> str:
    kind = token[0]
    if kind in ("ndarray", "Tensor"):  # a host tensor's device is None in its token
        return f"{kind}[{', '.join(str('cpu' if x is None else x) for x in token[1:-1])}]"
    if kind == "skipped":
        return "left out"
    if kind == "same":
        return "a reference to an object seen earlier"
    if kind in ("object", "container", "opaque"):
        return f"a {token[1]}"
    if kind in (set, frozenset):
        return f"{kind.__name__}({sorted(map(repr, token[1]))})"[:200]
    if isinstance(kind, type) and kind not in (dict, list, tuple):
        return f"{token[1]!r} ({kind.__name__})"
    if isinstance(kind, type):
        return f"a {kind.__name__} of {len(token[1])}"
    return str(token)[:200]


def _array_change(before: Token, after: Token) -> str | None:
    """Where two same-layout arrays differ: 'at flat index i: x -> y (k of n)'."""
    if before[:-1] != after[:-1]:
        return None
    dtype = np.dtype(before[1]) if before[0] == "ndarray" else _numpy_dtype(str(before[1]))
    if dtype is None:
        return "its bytes changed"
    a, b = np.frombuffer(before[-1], dtype=dtype), np.frombuffer(after[-1], dtype=dtype)
    diff = np.flatnonzero(a != b)
    if not len(diff):
        return "its bytes changed"
    i = int(diff[0])
    return (
        f"changed at flat index {i}: {a[i].item()!r} -> {b[i].item()!r} "
        f"({len(diff)} of {a.size} elements)"
    )


def _numpy_dtype(name: str) -> np.dtype | None:
    try:
        return torch.empty(0, dtype=getattr(torch, name.removeprefix("torch."))).numpy().dtype
    except (TypeError, AttributeError):
        return None


def difference(before: Token, after: Token, path: str = "") -> str | None:
    """The first change from ``before`` to ``after``, in words; None when equal."""
    if before == after:
        return None
    where = path or "the value"
    kind = before[0]
    if kind != after[0]:
        return f"{where} changed: {_describe(before)} -> {_describe(after)}"
    if kind in ("ndarray", "Tensor"):
        change = _array_change(before, after)
        return (
            f"{where} {change}"
            if change
            else f"{where} changed: {_describe(before)} -> {_describe(after)}"
        )
    if kind in (dict, list, tuple):
        plain = (before[-1] is not None, after[-1] is not None)
        if plain == (True, True):
            return _plain_difference(where, kind, before, after)
        if plain == (False, False):
            return _nested_difference(path, where, before, after)
    elif kind in ("container", "object"):
        return _nested_difference(path, where, before, after)
    return f"{where} changed: {_describe(before)} -> {_describe(after)}"


def _plain_difference(where: str, kind: type, before: Token, after: Token) -> str:
    if kind is dict:
        a, b = dict(before[1]), dict(after[1])
        if list(a) != list(b):
            if set(a) == set(b):
                return f"{where}: the order of its keys changed: {list(a)} -> {list(b)}"
            gone, new = [k for k in a if k not in b], [k for k in b if k not in a]
            return (
                f"{where}: keys {gone!r} removed, {new!r} added"
                if gone and new
                else f"{where}: keys {gone!r} removed"
                if gone
                else f"{where}: keys {new!r} added"
            )
        key = next(
            k
            for k, ta, tb in zip(a, before[2], after[2], strict=True)
            if a[k] != b[k] or ta is not tb
        )
        return f"{where}[{key!r}] changed: {a[key]!r} -> {b[key]!r}"
    a, b = before[1], after[1]
    if len(a) != len(b):
        return (
            f"{where} changed length: {len(a)} -> {len(b)} ({list(a)!r:.120} -> {list(b)!r:.120})"
        )
    i = next(
        i
        for i, (x, y, tx, ty) in enumerate(zip(a, b, before[2], after[2], strict=True))
        if x != y or tx is not ty
    )
    return f"{where}[{i}] changed: {a[i]!r} -> {b[i]!r}"


def _nested_difference(path: str, where: str, before: Token, after: Token) -> str:
    """Dicts, sequences and objects whose items are tokens themselves."""
    kind = before[0]
    if kind in (dict, "container", "object"):
        # (dict, keys, tokens, None); (container|object, type name, names, tokens)
        at = 1 if kind is dict else 2
        names_a, names_b = before[at], after[at]
        if kind is not dict and before[1] != after[1]:
            return f"{where} is now a {after[1]}, was a {before[1]}"
        if names_a != names_b:
            return (
                f"{where}: its {'attributes' if kind == 'object' else 'keys'} changed: "
                f"{list(names_a)} -> {list(names_b)}"
            )

        def sep(n: Any) -> str:
            return f".{n}" if kind == "object" else f"[{n!r}]" if kind is dict else f"[{n}]"

        for name, x, y in zip(names_a, before[at + 1], after[at + 1], strict=True):
            found = difference(x, y, f"{path}{sep(name)}")
            if found:
                return found
    else:
        items_a, items_b = before[1], after[1]
        if len(items_a) != len(items_b):
            return f"{where} changed length: {len(items_a)} -> {len(items_b)}"
        for i, (x, y) in enumerate(zip(items_a, items_b, strict=True)):
            found = difference(x, y, f"{path}[{i}]")
            if found:
                return found
    return f"{where} changed"
