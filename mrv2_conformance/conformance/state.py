"""Snapshots of everything a target exposes, to prove that a call changed nothing.

"Everything" is found, not listed: every numpy array and tensor reachable from the
given roots (the slot table, the input buffers) through attributes, dicts, lists and
tuples, plus every container of plain values (a table's id -> slot dict, its free
list). So a backend's extra buffers (a host ``seq_lens_cpu``, a staging list) are
compared too, byte for byte, without the suite knowing their names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from types import FunctionType, ModuleType
from typing import Any

import numpy as np
import torch
from mrv2_conformance.conformance.assertions import fail

_PLAIN = (str, int, float, bool, type(None))
_MAX_DEPTH = 4


def _is_plain_container(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, _PLAIN) and isinstance(v, _PLAIN) for k, v in value.items())
    if isinstance(value, (list, tuple, set)):
        return all(isinstance(v, _PLAIN) for v in value)
    return False


def walk(roots: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(path, value) of every array, tensor and plain container under ``roots``."""
    seen: set[int] = set()

    def visit(path: str, value: Any, depth: int) -> Iterator[tuple[str, Any]]:
        if id(value) in seen or isinstance(value, _PLAIN):
            return
        seen.add(id(value))
        if isinstance(value, (np.ndarray, torch.Tensor)):
            yield path, value
        elif _is_plain_container(value):
            if value:
                yield path, value
        elif depth >= _MAX_DEPTH or isinstance(
            value, (ModuleType, type, FunctionType, torch.device, torch.dtype)
        ):
            return
        elif isinstance(value, dict):
            for k, v in value.items():
                yield from visit(f"{path}[{k!r}]", v, depth + 1)
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                yield from visit(f"{path}[{i}]", v, depth + 1)
        elif hasattr(value, "__dict__"):
            for k, v in vars(value).items():
                yield from visit(f"{path}.{k}", v, depth + 1)

    for name, root in roots.items():
        yield from visit(name, root, 0)


def arrays(roots: dict[str, Any]) -> dict[str, np.ndarray | torch.Tensor]:
    return {p: v for p, v in walk(roots) if isinstance(v, (np.ndarray, torch.Tensor))}


def _raw(value: np.ndarray | torch.Tensor, copy: bool = True) -> tuple[np.ndarray, np.dtype | None]:
    """The elements' bytes, [n, itemsize], and the numpy dtype to decode them; with
    ``copy`` False, possibly a view of ``value``'s memory (to compare, not to keep)."""
    if isinstance(value, torch.Tensor):
        t = value.detach().reshape(-1).contiguous()
        if t.dtype == torch.bool:
            t = t.view(torch.uint8)
        raw = t.view(torch.uint8).cpu().numpy().reshape(value.numel(), value.element_size())
        try:
            dtype = torch.empty(0, dtype=value.dtype).numpy().dtype
        except TypeError:  # bfloat16 and friends: show bytes
            dtype = None
        return (raw.copy() if copy else raw), dtype
    flat = np.ascontiguousarray(value).reshape(-1)
    raw = flat.view(np.uint8).reshape(flat.size, value.itemsize)
    return (raw.copy() if copy else raw), value.dtype


@dataclass
class _Saved:
    obj: Any
    kind: str  # "array" or "plain"
    layout: tuple[Any, ...]  # dtype, shape, device
    data: Any  # bytes [n, itemsize], or a copy of the container
    dtype: Any = None


def snapshot(roots: dict[str, Any]) -> dict[str, _Saved]:
    snap = {}
    for path, value in walk(roots):
        if isinstance(value, (np.ndarray, torch.Tensor)):
            raw, dtype = _raw(value)
            device = value.device if isinstance(value, torch.Tensor) else "host"
            snap[path] = _Saved(
                value, "array", (str(value.dtype), tuple(value.shape), device), raw, dtype
            )
        else:
            snap[path] = _Saved(value, "plain", (type(value).__name__,), _copy_plain(value))
    return snap


def _copy_plain(value: Any) -> Any:
    return list(value.items()) if isinstance(value, dict) else list(value)


def _element(raw: np.ndarray, i: int, dtype: Any) -> Any:
    row = raw[i]
    return row.view(dtype)[0].item() if dtype is not None else bytes(row)


def assert_unchanged(call: str, before: dict[str, _Saved], roots: dict[str, Any]) -> None:
    """Every array and container in ``before`` is the same object with the same bytes;
    nothing was added. Names the first changed path and element."""
    now = dict(walk(roots))
    for path, saved in before.items():
        value = now.get(path)
        if value is not saved.obj:
            fail(
                f"{call}: {path} was {'removed' if value is None else 'replaced'} "
                f"(must be unchanged)"
            )
            continue
        if saved.kind == "plain":
            after = _copy_plain(value)
            if after != saved.data:
                fail(f"{call}: {path} changed (must be unchanged): {saved.data!r} -> {after!r}")
            continue
        device = value.device if isinstance(value, torch.Tensor) else "host"
        layout = (str(value.dtype), tuple(value.shape), device)
        if layout != saved.layout:
            fail(f"{call}: {path} changed from {saved.layout} to {layout} (must be unchanged)")
            continue
        raw, _ = _raw(value, copy=False)
        # One pass over the bytes first: finding the changed rows reduces along each
        # element's few bytes, 30x slower, and a vLLM table's buffers are megabytes.
        if np.array_equal(raw, saved.data):
            continue
        rows = np.flatnonzero((raw != saved.data).any(axis=1))
        if len(rows):
            i = int(rows[0])
            index = np.unravel_index(i, saved.layout[1]) if saved.layout[1] else ()
            where = index[0] if len(index) == 1 else tuple(int(x) for x in index)
            fail(
                f"{call}: {path} changed at index {where} ({len(rows)} of {len(raw)} "
                f"elements; must be unchanged): {_element(saved.data, i, saved.dtype)!r} "
                f"-> {_element(raw, i, saved.dtype)!r}"
            )
    added = [p for p, v in now.items() if p not in before]
    if added:
        fail(f"{call}: new state appeared (must be unchanged): {', '.join(added[:5])}")


def fill_with_sentinels(roots: dict[str, Any]) -> None:
    """Overwrite every array under ``roots`` with values no batch writes (large
    negative, distinct per element), so that any write shows."""
    for value in arrays(roots).values():
        shape = tuple(value.shape)
        n = int(np.prod(shape))
        if n == 0:
            continue
        if value.dtype in (torch.bool, np.bool_):
            pattern = np.arange(n) % 2 == 0
        else:
            pattern = -1_000_003 - np.arange(n)
        if isinstance(value, torch.Tensor):
            with torch.no_grad():
                value.copy_(torch.from_numpy(pattern.reshape(shape)).to(value.dtype))
        elif value.flags.writeable:
            value[...] = pattern.reshape(shape).astype(value.dtype)
