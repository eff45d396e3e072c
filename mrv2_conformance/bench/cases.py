"""The side-by-side comparisons. Each group times a baseline and its alternatives on
the same inputs; ratios are baseline_median / alternative_median (> 1: faster)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from mrv2_conformance.impl.gather import build_idx_mapping
from mrv2_conformance.impl.scheduler import validate_batch

from mrv2_conformance import impl

BATCH_SIZES = (1, 8, 64, 256, 1024, 4096)
TABLE_SIZES = (1024, 16384)


@dataclass
class Setup:
    """A slot table of ``table_size`` live requests and a batch of ``batch_size`` of them."""

    table_size: int
    batch_size: int

    def __post_init__(self) -> None:
        rng = np.random.default_rng(self.table_size * 7919 + self.batch_size)
        self.table = impl.SlotTable(self.table_size)
        ids = [f"cmpl-{i:032x}-0" for i in range(self.table_size)]
        for i, req_id in enumerate(ids):
            self.table.add_request(req_id, 64, int(i % 96))
        chosen = rng.choice(self.table_size, self.batch_size, replace=False)
        self.req_ids = [ids[i] for i in chosen]
        self.mapping = self.table.req_id_to_index
        self.idx_intp = np.fromiter(map(self.mapping.__getitem__, self.req_ids), np.intp)
        self.idx_int32 = self.idx_intp.astype(np.int32)
        self.batch = impl.SchedulerBatch({r: 1 for r in self.req_ids})
        self.slot_state_t = torch.from_numpy(self.table.num_computed_tokens)
        self.idx_t = {
            torch.int32: torch.from_numpy(self.idx_int32),
            torch.int64: torch.from_numpy(self.idx_intp),
        }


# --- mapping build ------------------------------------------------------------------


def build_get(s: Setup) -> np.ndarray:  # pre-#51210 upstream
    return np.fromiter(map(s.mapping.get, s.req_ids), dtype=np.intp, count=len(s.req_ids))


def build_getitem(s: Setup) -> np.ndarray:  # #51210 upstream
    return np.fromiter(map(s.mapping.__getitem__, s.req_ids), dtype=np.intp, count=len(s.req_ids))


def build_itemgetter(s: Setup) -> np.ndarray:
    # itemgetter(*ids) returns a bare value for one id; raises KeyError(req_id) like []
    values = operator.itemgetter(*s.req_ids)(s.mapping)
    if len(s.req_ids) == 1:
        values = (values,)
    return np.array(values, dtype=np.intp)


def build_listcomp(s: Setup) -> np.ndarray:
    m = s.mapping
    return np.array([m[r] for r in s.req_ids], dtype=np.intp)


def build_reference(s: Setup) -> np.ndarray:
    return build_idx_mapping(s.mapping, s.req_ids)


# --- gather end to end --------------------------------------------------------------


def gather_pre_pr(s: Setup) -> None:
    """The pre-#51210 choices in the same function: dict.get, int32 mapping, so each
    fancy index converts it to intp first."""
    batch, table = s.batch, s.table
    validate_batch(batch)
    req_ids = impl.sort_batch_req_ids(batch.num_scheduled_tokens, {}, 1)
    n = len(req_ids)
    np.fromiter(map(batch.num_scheduled_tokens.get, req_ids), np.int32, count=n)
    idx = np.fromiter(map(table.req_id_to_index.get, req_ids), np.int32, count=n)
    prefill_len = table.prefill_len[idx]
    computed_prefill = table.num_computed_prefill_tokens[idx]
    table.num_computed_tokens[idx]
    bool((computed_prefill < prefill_len).any())


def gather_contract(s: Setup) -> None:
    impl.gather_batch_req_state(s.batch, s.table, 1)


@dataclass(frozen=True)
class Group:
    name: str
    baseline: str
    variants: dict[str, Callable[[Setup], object]]


def _torch_index(dtype: torch.dtype, how: str) -> Callable[[Setup], object]:
    def run(s: Setup) -> object:
        src, idx = s.slot_state_t, s.idx_t[dtype]
        if how == "index_select":
            return torch.index_select(src, 0, idx)
        if how == "advanced":
            return src[idx]
        # torch.gather takes only int64 indices: int32 must convert first.
        return torch.gather(src, 0, idx if dtype == torch.int64 else idx.to(torch.int64))

    return run


GROUPS: tuple[Group, ...] = (
    Group(
        "mapping build",
        "dict.get (pre-PR)",
        {
            "dict.get (pre-PR)": build_get,
            "__getitem__ (#51210)": build_getitem,
            "itemgetter": build_itemgetter,
            "list comprehension": build_listcomp,
            "reference impl": build_reference,
        },
    ),
    Group(
        "numpy fancy index",
        "int32 index",
        {
            "int32 index": lambda s: s.table.num_computed_tokens[s.idx_int32],
            "intp index": lambda s: s.table.num_computed_tokens[s.idx_intp],
        },
    ),
    Group(
        "torch index_select",
        "int32 index",
        {
            "int32 index": _torch_index(torch.int32, "index_select"),
            "int64 index": _torch_index(torch.int64, "index_select"),
        },
    ),
    Group(
        "torch advanced index",
        "int32 index",
        {
            "int32 index": _torch_index(torch.int32, "advanced"),
            "int64 index": _torch_index(torch.int64, "advanced"),
        },
    ),
    Group(
        "torch gather",
        "int32 + to(int64)",
        {
            "int32 + to(int64)": _torch_index(torch.int32, "gather"),
            "int64 index": _torch_index(torch.int64, "gather"),
        },
    ),
    Group(
        "H2D copy of the mapping",
        "int32 + to(int64)",
        {
            "int32 + to(int64)": lambda s: impl.async_copy_to_gpu(s.idx_int32, device=DEVICE).to(
                torch.int64
            ),
            "intp -> int64": lambda s: impl.async_copy_to_gpu(s.idx_intp, device=DEVICE),
        },
    ),
    Group(
        "gather_batch_req_state",
        "pre-PR choices",
        {
            "pre-PR choices": gather_pre_pr,
            "contract (reference)": gather_contract,
        },
    ),
)

DEVICE: str = "cuda" if torch.cuda.is_available() else "cpu"
