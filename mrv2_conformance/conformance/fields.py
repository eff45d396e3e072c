"""The input batch's fields: where each lives, its dtype and its length (CONTRACT F1.3).

Lengths are symbolic: ``reqs`` = num_reqs, ``reqs+1``, ``expanded`` = num_reqs +
num_draft_tokens, ``logits`` = cu_num_logits_np[-1] (0 on a PCP placeholder rank).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from mrv2_conformance.conformance.assertions import (
    ContractViolation,
    assert_device_tensor,
    assert_host_array,
    fail,
)

# The slot table's per-slot host arrays (CONTRACT, Terms), all int32.
TABLE_ARRAYS = ("num_computed_tokens", "prefill_len", "num_computed_prefill_tokens")


@dataclass(frozen=True)
class ArrayField:
    name: str
    on_device: bool
    dtype: Any
    length: str
    # A view of a persistent input buffer (graph replay reads the buffer), as upstream
    # builds it; every other field is a fresh array that no later batch changes
    # (CONTRACT, Clarifications: Aliasing; read in vLLM 0.34.0's prepare_inputs and make_dummy).
    view: bool = False


ARRAY_FIELDS: tuple[ArrayField, ...] = (
    ArrayField("idx_mapping_np", False, np.intp, "reqs"),
    ArrayField("idx_mapping", True, torch.int64, "reqs"),
    ArrayField("expanded_idx_mapping", True, torch.int64, "expanded"),
    ArrayField("expanded_local_pos", True, torch.int32, "expanded"),
    ArrayField("num_scheduled_tokens", False, np.int32, "reqs"),
    ArrayField("query_start_loc", True, torch.int32, "reqs+1", view=True),
    ArrayField("query_start_loc_np", False, np.int32, "reqs+1"),
    ArrayField("seq_lens", True, torch.int32, "reqs", view=True),
    ArrayField("num_computed_tokens_np", False, np.int32, "reqs"),
    ArrayField("prefill_len_np", False, np.int32, "reqs"),
    ArrayField("num_computed_prefill_tokens_np", False, np.int32, "reqs"),
    ArrayField("is_prefilling_np", False, np.bool_, "reqs"),
    ArrayField("logits_indices", True, torch.int64, "logits"),
    ArrayField("cu_num_logits", True, torch.int32, "reqs+1"),
    ArrayField("cu_num_logits_np", False, np.int32, "reqs+1"),
)

SCALAR_FIELDS: dict[str, type] = {
    "req_ids": list,
    "num_reqs": int,
    "num_tokens": int,
    "num_tokens_after_padding": int,
    "num_draft_tokens": int,
    "has_prefill": bool,
}

# (device tensor, host twin)
DEVICE_TWINS: tuple[tuple[str, str], ...] = (
    ("idx_mapping", "idx_mapping_np"),
    ("query_start_loc", "query_start_loc_np"),
    ("cu_num_logits", "cu_num_logits_np"),
)


def expected_length(batch: Any, length: str) -> int:
    num_reqs = len(batch.req_ids)
    return {
        "reqs": num_reqs,
        "reqs+1": num_reqs + 1,
        "expanded": num_reqs + int(batch.num_draft_tokens),
        "logits": int(np.asarray(batch.cu_num_logits_np)[-1]),
    }[length]


def check_batch_layout(call: str, batch: Any, device: str) -> None:
    """Every field: host/device, exact dtype, device, shape; scalars' Python types.
    The arrays come first: their dtypes are what the contract is about."""
    for f in ARRAY_FIELDS:
        shape = (expected_length(batch, f.length),)
        value = field(call, batch, f.name)
        if f.on_device:
            assert_device_tensor(call, f.name, value, f.dtype, device, shape)
        else:
            assert_host_array(call, f.name, value, f.dtype, shape)
    for name, typ in SCALAR_FIELDS.items():
        value = field(call, batch, name)
        if type(value) is not typ:
            fail(f"{call}: {name} must be a {typ.__name__}, got {value!r} ({type(value).__name__})")
    if type(batch.req_ids) is list and not all(type(r) is str for r in batch.req_ids):
        fail(f"{call}: req_ids must hold str, got {[type(r).__name__ for r in batch.req_ids]}")


def field(call: str, batch: Any, name: str) -> Any:
    """``batch.name``, or a failure that says the field is missing."""
    try:
        return getattr(batch, name)
    except AttributeError:
        raise ContractViolation(
            [(f"{call}: the batch ({type(batch).__qualname__}) has no field {name!r}")]
        ) from None


def check_no_conversion_on_use(call: str, batch: Any) -> None:
    """Index arrays are already what indexing wants: converting them is a no-op."""
    idx_np = batch.idx_mapping_np
    if not isinstance(idx_np, np.ndarray):
        return  # check_batch_layout names it
    if np.asarray(idx_np, dtype=np.intp) is not idx_np:
        fail(
            f"{call}: np.asarray(idx_mapping_np, np.intp) made a copy "
            f"(idx_mapping_np is {idx_np.dtype}, not intp)"
        )
    if torch.from_numpy(idx_np).dtype != torch.int64:
        fail(
            f"{call}: torch.from_numpy(idx_mapping_np) is {torch.from_numpy(idx_np).dtype}, "
            f"expected torch.int64"
        )
    for name in ("idx_mapping", "expanded_idx_mapping", "logits_indices"):
        t = getattr(batch, name)
        if isinstance(t, torch.Tensor) and t.to(torch.int64) is not t:
            fail(f"{call}: {name}.to(torch.int64) made a copy ({name} is {t.dtype}, not int64)")


def describe_field(value: Any) -> tuple[Any, ...]:
    """What parity compares: Python type, dtype, device, rank, shape."""
    if isinstance(value, torch.Tensor):
        return ("torch.Tensor", value.dtype, value.device, value.dim(), tuple(value.shape))
    if isinstance(value, np.ndarray):
        return ("np.ndarray", value.dtype, "host", value.ndim, value.shape)
    if isinstance(value, list):
        return ("list", len(value))
    return (type(value).__name__,)
