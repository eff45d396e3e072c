"""What each interface function reads and what it may change (docs/CONTRACT.md, "What
each function reads and changes"), checked on every call the suite makes.

``checked(name, fn)`` wraps a target's function: before the call it freezes every
argument the contract says the function only reads (``conformance/frozen.py``: the
containers, their contents and their order), and after the call, also when it raised,
it compares. A change fails the call with the argument, the path and the values. The
wrapper is applied by ``conformance.target.Target`` to every interface function, so
each property checks these clauses on each call it makes; the ``effects`` family runs
every function on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from mrv2_conformance.conformance.assertions import ContractViolation
from mrv2_conformance.conformance.frozen import Probe, Token, difference, freeze

# The slot table's contract state (CONTRACT, Terms): what the suite reads of any
# target's table. Backend-internal state (vLLM's next_prefill_tokens, which its
# prepare_inputs writes) is not part of it.
TABLE_STATE = (
    "req_id_to_index",
    "num_computed_tokens",
    "prefill_len",
    "num_computed_prefill_tokens",
)


def table_state(table: Any) -> dict[str, Any]:
    """The contract state of a slot table, as its interface exposes it."""
    return {
        name: (
            dict(getattr(table, name))
            if name == "req_id_to_index"
            else np.asarray(getattr(table, name))
        )
        for name in TABLE_STATE
    }


def _whole(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class ReadOnly:
    """An argument the function only reads: its position and name in the interface
    signature, and what of it is compared (the whole value, or a table's state)."""

    index: int
    name: str
    view: Callable[[Any], Any] = _whole


@dataclass(frozen=True)
class Clause:
    reads: tuple[ReadOnly, ...]
    changes: str  # what the function may change, in the CONTRACT's words


_STEP = ReadOnly(0, "batch")
_TABLE = ReadOnly(1, "slot_table", table_state)

CLAUSES: dict[str, Clause] = {
    "sort_batch_req_ids": Clause(
        (ReadOnly(0, "num_tokens_per_req"), ReadOnly(1, "draft_tokens")), "nothing"
    ),
    "gather_batch_req_state": Clause((_STEP, _TABLE), "nothing"),
    "prepare_inputs": Clause((_STEP, _TABLE), "the input buffers"),
    "update_states": Clause((ReadOnly(0, "step"),), "the slot table"),
    "make_dummy": Clause((), "the input buffers"),
    "async_copy_to_gpu": Clause((ReadOnly(0, "x"),), "out"),
    "build_pcp_layout": Clause((ReadOnly(0, "global_batch"),), "nothing"),
    "partition_batch": Clause((ReadOnly(0, "global_batch"),), "the rank's input buffers"),
}


def _argument(args: tuple[Any, ...], kwargs: dict[str, Any], arg: ReadOnly) -> Any:
    if arg.index < len(args):
        return args[arg.index]
    return kwargs.get(arg.name, _MISSING)


_MISSING = object()


def checked(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with ``name``'s clause checked on every call."""
    clause = CLAUSES[name]
    if not clause.reads:
        return fn

    # The token an argument had after the last call serves as its token before the
    # next call with the same object (a PCP property partitions one global batch on
    # every rank): the suite changes no argument between calls. Not for a table, which
    # other calls (update_states, add_request) change legitimately.
    last: dict[str, tuple[Any, Token]] = {}

    def call(*args: Any, **kwargs: Any) -> Any:
        before: list[tuple[ReadOnly, Any, Token]] = []
        for arg in clause.reads:
            value = _argument(args, kwargs, arg)
            if value is _MISSING:
                continue
            cached = last.get(arg.name)
            token = (
                cached[1]
                if cached is not None and cached[0] is value and arg.view is _whole
                else freeze(arg.view(value))
            )
            before.append((arg, value, token))
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            _compare(name, clause, before, last, raised=exc)
            raise
        _compare(name, clause, before, last)
        return result

    call.__wrapped__ = fn  # type: ignore[attr-defined]
    call.__name__ = getattr(fn, "__name__", name)
    call.__doc__ = getattr(fn, "__doc__", None)
    return call


def _compare(
    name: str,
    clause: Clause,
    before: list[tuple[ReadOnly, Any, Token]],
    last: dict[str, tuple[Any, Token]],
    raised: BaseException | None = None,
) -> None:
    failures = []
    last.clear()
    for arg, value, frozen in before:
        now = freeze(arg.view(value))
        if arg.view is _whole:
            last[arg.name] = (value, now)
        if now == frozen:
            continue
        change = difference(frozen, now, arg.name)
        if change:
            failures.append(
                f"{name}() changed its argument {arg.name}, which it only reads (CONTRACT, "
                f"'What each function reads and changes': it may change "
                f"{clause.changes}){' before raising ' + type(raised).__name__ if raised else ''}"
                f": {change}"
            )
    if failures:
        raise ContractViolation(failures) from raised


# --- results: what a returned batch must keep ----------------------------------------


@dataclass(frozen=True)
class Held:
    """A result as it was returned, to check that later calls leave it alone."""

    label: str
    value: Any
    token: Token
    skip: frozenset[int]
    probe: Probe | None = None  # the fast check, for a result with attributes


def hold(label: str, value: Any, buffers: Any) -> Held:
    """Freeze a returned batch. Its contract views (CONTRACT, Clarifications:
    Aliasing), and any other array of it that lies in the persistent ``buffers`` (a
    backend's ``input_ids``, ``positions`` ...), follow the buffers and are left out."""
    from mrv2_conformance.conformance import state
    from mrv2_conformance.conformance.assertions import extents_overlap, memory_extent
    from mrv2_conformance.conformance.fields import ARRAY_FIELDS

    views = {f.name for f in ARRAY_FIELDS if f.view}
    persistent = [
        e
        for a in state.arrays({"buffers": buffers}).values()
        if (e := memory_extent(a)) is not None
    ]
    skip = set()
    items = (
        vars(value).items()
        if hasattr(value, "__dict__")
        else [
            (s, getattr(value, s))
            for cls in type(value).__mro__
            for s in getattr(cls, "__slots__", ())
            if hasattr(value, s)
        ]
    )
    for name, item in items:
        ext = memory_extent(item)
        if name in views or (ext is not None and any(extents_overlap(ext, b) for b in persistent)):
            skip.add(id(item))
    frozen_skip = frozenset(skip)
    probe = Probe(value, frozen_skip) if hasattr(value, "__dict__") else None
    return Held(label, value, freeze(value, frozen_skip), frozen_skip, probe)


def change_since_held(held: Held) -> str | None:
    """What changed in a held result, in words; None when it holds."""
    if held.probe is not None and held.probe.holds():
        return None
    now = freeze(held.value, held.skip)
    if now == held.token:
        return None
    return (
        f"{held.label} changed after it was returned (a later call wrote into it; "
        f"only views of the buffers may change: CONTRACT, 'What each function reads "
        f"and changes'): {difference(held.token, now, 'batch')}"
    )
