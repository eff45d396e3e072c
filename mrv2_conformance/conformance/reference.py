"""Keeping the oracle out of the target's reach.

A target may import ``impl`` (the reference) to reuse parts of it, and a broken one may
patch it. Two defences:

* ``private_reference()``: the differential family compares with a private copy of
  ``impl``, imported from source before the target is imported and kept out of
  ``sys.modules``, so patching ``impl.<anything>`` changes the target's copy only.
* ``Fingerprint``: the identity of every function, class member and module-level value
  of the suite's own modules (the reference, its private copy, the oracle, the
  assertion helpers, the strategies), taken before the target is imported and compared
  after the import and after every test. A change fails every test, naming the target
  and what it replaced.
"""

from __future__ import annotations

import importlib
import sys
from types import FunctionType, ModuleType
from typing import Any

REFERENCE = "mrv2_conformance.impl"
# The suite's own packages; their test modules are excluded (pytest rewrites them).
SUITE_PACKAGES = tuple(f"mrv2_conformance.{p}" for p in ("impl", "conformance", "strategies"))
_private: dict[str, ModuleType] = {}


def _in_package(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def load_private_copy(package: str = REFERENCE) -> dict[str, ModuleType]:
    """Import ``package`` afresh from its source files and return its modules by name,
    leaving ``sys.modules`` as it was (the shared copy stays the shared copy)."""
    saved = {n: m for n, m in sys.modules.items() if _in_package(n, package)}
    # Importing a submodule also binds it on its parent package: rebind the shared
    # copy there afterwards, or `from mrv2_conformance import impl` would get ours.
    parent_name, _, child = package.rpartition(".")
    parent = sys.modules.get(parent_name) if parent_name else None
    bound = getattr(parent, child, None)
    for name in saved:
        del sys.modules[name]
    try:
        importlib.import_module(package)
        fresh = {n: m for n, m in sys.modules.items() if _in_package(n, package)}
    finally:
        for name in [n for n in sys.modules if _in_package(n, package)]:
            del sys.modules[name]
        sys.modules.update(saved)
        if parent is not None:
            if bound is None:
                delattr(parent, child)
            else:
                setattr(parent, child, bound)
    return fresh


def private_reference() -> ModuleType:
    """The private copy of the reference (loaded once per process)."""
    if not _private:
        _private.update(load_private_copy())
    return _private[REFERENCE]


def _identity(value: Any) -> Any:
    if isinstance(value, FunctionType):
        return (
            id(value),
            id(value.__code__),
            id(value.__defaults__),
            id(value.__kwdefaults__),
            id(value.__globals__),
        )
    if isinstance(value, (dict, list, set)) and len(value) < 200:
        return (id(value), repr(value))
    return id(value)


def _module_fingerprint(module: ModuleType) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in list(vars(module).items()):
        if isinstance(value, ModuleType) or name.startswith("__"):
            continue
        out[name] = _identity(value)
        if isinstance(value, type) and value.__module__ == module.__name__:
            for member, inner in list(vars(value).items()):
                if member not in ("__dict__", "__weakref__", "__doc__"):
                    out[f"{name}.{member}"] = _identity(inner)
    return out


class Fingerprint:
    """What the suite's own modules hold, by qualified name."""

    def __init__(self) -> None:
        self.modules = self._watched()
        self.values = {
            (label, k): v
            for label, m in self.modules.items()
            for k, v in _module_fingerprint(m).items()
        }

    @staticmethod
    def _watched() -> dict[str, ModuleType]:
        mods = {
            n: m
            for n, m in list(sys.modules.items())
            if any(_in_package(n, p) for p in SUITE_PACKAGES)
            and not n.rsplit(".", 1)[-1].startswith("test_")
        }
        mods.update({f"{n} (private reference copy)": m for n, m in _private.items()})
        return mods

    def changes(self) -> list[str]:
        """What differs now: 'impl.gather.build_idx_mapping replaced', ..."""
        now = {
            (label, k): v
            for label, m in self.modules.items()
            for k, v in _module_fingerprint(m).items()
        }
        out = []
        for key, value in self.values.items():
            if now.get(key, "<deleted>") != value:
                out.append(
                    f"{key[0]}.{key[1]} {'deleted' if key not in now else 'replaced or changed'}"
                )
        out += [f"{label}.{name} added" for (label, name) in now.keys() - self.values.keys()]
        return out


def import_suite_modules() -> None:
    """Every module of the suite the checks rely on, imported before the target."""
    for name in (
        "impl",
        "strategies",
        "conformance.assertions",
        "conformance.build",
        "conformance.differential",
        "conformance.fields",
        "conformance.oracle",
        "conformance.state",
        "conformance.aliasing",
    ):
        importlib.import_module(f"mrv2_conformance.{name}")
    private_reference()
