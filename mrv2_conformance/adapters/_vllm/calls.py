"""Calling an upstream function across releases: by parameter name, never by position
(no vLLM import here, so the binding is tested without vLLM)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


class UnknownApi(Exception):
    """The installed release has an API the adapter does not know how to drive."""

    names_itself = True  # its message says what and where; no frame is added


def _member(release: str, owner: Any, path: str) -> Any:
    value = owner
    for part in path.split("."):
        if not hasattr(value, part):
            # A class or module names where it was looked for; a namespace, nothing.
            owner_name = getattr(owner, "__name__", "").rsplit(".", 1)[-1]
            where = f"{owner_name}.{path}" if owner_name and owner_name != path else path
            raise UnknownApi(f"{release} has no {where} (the adapter calls it)")
        value = getattr(value, part)
    return value


@dataclass(frozen=True)
class Call:
    """One upstream callable and the parameters the adapter passes to it, by name."""

    name: str
    fn: Callable[..., Any]
    passes: tuple[str, ...]

    def takes(self, param: str) -> bool:
        return param in self.passes

    def __call__(self, *bound: Any, **values: Any) -> Any:
        """``bound``: the leading receiver (an unbound method's ``self``), if any;
        ``values``: every value the adapter can offer, by parameter name."""
        return self.fn(*bound, **{p: values[p] for p in self.passes if p in values})


@dataclass(frozen=True)
class Missing:
    """A call the adapter cannot make on this release: found at import, named by the
    import probe (probe.py) with every other gap, and raised if it is ever called."""

    name: str
    gap: str

    def takes(self, param: str) -> bool:
        return False

    def __call__(self, *bound: Any, **values: Any) -> Any:
        raise UnknownApi(self.gap)


def call(
    release: str, owner: Any, path: str, can_pass: Iterable[str], method: bool = False
) -> Call:
    """``owner.path``'s parameters: those named in ``can_pass`` are passed; one that is
    not, without a default, is an API the adapter does not know. ``method``: an
    unbound method, whose first parameter (``self``) the caller passes positionally."""
    fn = _member(release, owner, path)
    name = f"{getattr(owner, '__name__', str(owner)).rsplit('.', 1)[-1]}.{path}"
    known = set(can_pass)
    passes, unknown = [], []
    for i, p in enumerate(inspect.signature(fn).parameters.values()):
        if i == 0 and method:
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.name in known:
            passes.append(p.name)
        elif p.default is p.empty:
            unknown.append(p.name)
    if unknown:
        raise UnknownApi(
            f"{release}: {name} takes {', '.join(map(repr, unknown))}, which the adapter "
            f"does not know how to fill (it can pass {', '.join(sorted(known))})"
        )
    return Call(name, fn, tuple(passes))
