"""Which fields of an input batch share memory with what (CONTRACT, Clarifications: Aliasing).

Views (``ArrayField.view``) must lie in a persistent input buffer; every other field
must be fresh: sharing memory with no buffer, no slot-table array, no other field of
its batch (``expanded_idx_mapping is idx_mapping`` without drafts is the one named
alias) and none of the ``others`` given (another batch, a PCP global batch). A device
tensor that shares memory with its host twin is a zero-copy host-to-device "copy".
"""

from __future__ import annotations

from typing import Any

from mrv2_conformance.conformance import state
from mrv2_conformance.conformance.assertions import Extent, extents_overlap, fail, memory_extent
from mrv2_conformance.conformance.fields import ARRAY_FIELDS, DEVICE_TWINS

_TWIN = {**dict(DEVICE_TWINS), **{h: d for d, h in DEVICE_TWINS}}


def batch_arrays(batch: Any) -> dict[str, Any]:
    """The batch's contract arrays that hold memory, by field name."""
    out = {}
    for f in ARRAY_FIELDS:
        value = getattr(batch, f.name, None)
        if memory_extent(value) is not None:
            out[f.name] = value
    return out


def extents(named: dict[str, Any]) -> dict[str, Extent]:
    """Each array's memory extent, once (the checks compare every pair)."""
    return {k: e for k, v in named.items() if (e := memory_extent(v)) is not None}


def check_batch_aliasing(
    call: str, batch: Any, buffers: Any, table: Any = None, others: dict[str, Extent] | None = None
) -> None:
    """``others``: extents (see ``extents``) of arrays no fresh field may share."""
    fields = extents(batch_arrays(batch))
    buffer_extents = extents(state.arrays({"buffers": buffers}))
    persistent = {
        **buffer_extents,
        **(extents(state.arrays({"table": table})) if table is not None else {}),
    }
    for f in ARRAY_FIELDS:
        ext = fields.get(f.name)
        if ext is None:
            continue
        if f.view:
            if not any(extents_overlap(ext, b) for b in buffer_extents.values()):
                fail(
                    f"{call}: {f.name} must be a view of a persistent input buffer, but it "
                    f"shares memory with none of them ({', '.join(buffer_extents) or 'none'})"
                )
            continue
        shared = [p for p, e in persistent.items() if extents_overlap(ext, e)]
        shared += [
            f"{o} (another field of this batch)"
            if o != _TWIN.get(f.name)
            else f"its {'host' if f.on_device else 'device'} twin {o}"
            for o, e in fields.items()
            if o != f.name and extents_overlap(ext, e) and not _named_alias(batch, f.name, o)
        ]
        shared += [p for p, e in (others or {}).items() if extents_overlap(ext, e)]
        if shared:
            fail(
                f"{call}: {f.name} must be a fresh array, but it shares memory with "
                f"{', '.join(shared)}"
            )


def _named_alias(batch: Any, a: str, b: str) -> bool:
    """Without drafts, expanded_idx_mapping *is* idx_mapping (CONTRACT F1.3)."""
    pair = {a, b} == {"idx_mapping", "expanded_idx_mapping"}
    return pair and batch.expanded_idx_mapping is batch.idx_mapping
