"""Stand-ins for the Ascend toolkit, so vllm-ascend's modules import on a machine
without it: ``torch_npu`` (and every submodule), ``torch.npu`` and
``triton.language.extra.cann`` (and every submodule).

A stand-in is no implementation: every attribute of it is another stand-in, every call
returns one, and each access is recorded. The modules under test touch them at import
(dtype aliases, ``torch.npu.Event`` in annotations, Triton-Ascend ops bound to names);
the report lists those accesses. *During a contract call* (``guard``) any touch
raises ``StandInTouched`` naming it, and is remembered even if the code under test
swallows the error, so no result of the suite can come from a stand-in.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Iterator
from typing import Any

ROOTS = ("torch_npu", "triton.language.extra.cann")


class StandInTouched(RuntimeError):
    pass


class _Ledger:
    def __init__(self) -> None:
        self.import_time: dict[str, None] = {}  # ordered set
        self.guarding: str | None = None  # the contract call in progress
        self.violations: list[str] = []

    def touch(self, what: str) -> None:
        if self.guarding is None:
            self.import_time.setdefault(what, None)
            return
        message = (
            f"{self.guarding} touched the stand-in {what}: a stand-in for the Ascend "
            f"toolkit is not an implementation, so no contract result may come from "
            f"it (adapters/_ascend/stand_ins.py)"
        )
        self.violations.append(message)
        raise StandInTouched(message)


LEDGER = _Ledger()


def _child(path: str) -> type:
    return _StandInMeta(path, (), {"_path": path})


class _StandInMeta(type):
    """A stand-in value is a class: it can be annotated with (``X | None``),
    subclassed, called and looked into, and each of those is recorded."""

    _path: str

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        LEDGER.touch(f"{cls._path}.{name}")
        return _child(f"{cls._path}.{name}")

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        LEDGER.touch(f"{cls._path}(...)")
        return _child(f"{cls._path}(...)")

    def __repr__(cls) -> str:
        return f"<stand-in {cls._path}>"


class StandInModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        LEDGER.touch(f"{self.__name__}.{name}")
        return _child(f"{self.__name__}.{name}")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(
        self, name: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if any(name == root or name.startswith(root + ".") for root in ROOTS):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = StandInModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        LEDGER.touch(f"import {module.__name__}")


_FINDER = _Finder()


def install() -> None:
    """Serve the stand-ins (idempotent). Call after vLLM is imported: libraries that probe
    for ``torch_npu`` at their own import must not see one."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    import torch

    if not isinstance(getattr(torch, "npu", None), StandInModule):
        npu = StandInModule("torch.npu")
        npu.__spec__ = importlib.machinery.ModuleSpec("torch.npu", _FINDER)
        torch.npu = npu  # type: ignore[attr-defined]
        sys.modules["torch.npu"] = npu


def uninstall() -> None:
    """Remove the stand-ins again (the suite's own tests install them in-process)."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [
        n
        for n in sys.modules
        if any(n == r or n.startswith(r + ".") for r in (*ROOTS, "torch.npu"))
    ]:
        if isinstance(sys.modules[name], StandInModule):
            del sys.modules[name]
    import torch

    if isinstance(getattr(torch, "npu", None), StandInModule):
        del torch.npu  # type: ignore[attr-defined]  # a stand-in module set on torch


@contextlib.contextmanager
def guard(call: str) -> Iterator[None]:
    """Within: touching a stand-in raises. After: a touch the code under test
    swallowed still fails the call."""
    outer, before = LEDGER.guarding, len(LEDGER.violations)
    LEDGER.guarding = call
    try:
        yield
    finally:
        LEDGER.guarding = outer
    if len(LEDGER.violations) > before:
        raise StandInTouched(LEDGER.violations[before])


def disclosure() -> list[str]:
    """What the report header says about the stand-ins."""
    touched = list(LEDGER.import_time)
    return [
        f"stand-ins (no implementation; any use during a contract call fails it): "
        f"{', '.join([*ROOTS, 'torch.npu'])}",
        f"touched at import ({len(touched)}): {', '.join(touched) or 'nothing'}",
    ]
