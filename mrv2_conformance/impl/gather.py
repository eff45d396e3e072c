"""F1.2: gather the per-request state of a batch, in batch order."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from mrv2_conformance.impl.ordering import sort_batch_req_ids
from mrv2_conformance.contract import SchedulerBatch
from mrv2_conformance.impl.scheduler import validate_batch
from mrv2_conformance.impl.slot_table import SlotTable


@dataclass
class BatchState:
    req_ids: list[str]
    num_scheduled_tokens: np.ndarray  # int32 [num_reqs]
    idx_mapping_np: np.ndarray  # intp [num_reqs]: batch position -> slot
    num_computed_tokens_np: np.ndarray  # int32 [num_reqs]
    prefill_len_np: np.ndarray  # int32 [num_reqs]
    num_computed_prefill_tokens_np: np.ndarray  # int32 [num_reqs]
    is_prefilling_np: np.ndarray  # bool [num_reqs]
    has_prefill: bool

    @property
    def num_reqs(self) -> int:
        return len(self.req_ids)


def build_idx_mapping(req_id_to_index: Mapping[str, int], req_ids: list[str]) -> np.ndarray:
    """Slot of each id, as intp, with ``__getitem__`` semantics: a missing id raises
    ``KeyError(req_id)``. ``itemgetter`` does all lookups in one C call: measured
    1.1-1.4x faster than upstream's ``np.fromiter(map(d.__getitem__, ids))`` at every
    batch size (bench/)."""
    if len(req_ids) <= 1:  # itemgetter returns a bare value for one key, fails on none
        return np.array([req_id_to_index[r] for r in req_ids], dtype=np.intp)
    return np.array(operator.itemgetter(*req_ids)(req_id_to_index), dtype=np.intp)


def gather_batch_req_state(
    batch: SchedulerBatch, slot_table: SlotTable, decode_query_len: int
) -> BatchState:
    """Order the batch (F1.1) and gather its slot indices and slot state.

    Lookups are ``__getitem__``: a scheduled id that is not in the slot table raises
    ``KeyError(req_id)``. Nothing is written anywhere, so the error changes nothing.
    """
    validate_batch(batch)
    num_tokens_per_req = batch.num_scheduled_tokens
    req_ids = sort_batch_req_ids(
        num_tokens_per_req, batch.scheduled_spec_decode_tokens, decode_query_len
    )
    num_reqs = len(req_ids)
    num_scheduled_tokens = np.fromiter(
        map(num_tokens_per_req.__getitem__, req_ids), dtype=np.int32, count=num_reqs
    )
    # intp: the array is only ever used to index, so pointer width avoids a
    # conversion at every use (numpy fancy indexing, torch int64 indices).
    idx_mapping_np = build_idx_mapping(slot_table.req_id_to_index, req_ids)
    prefill_len_np = slot_table.prefill_len[idx_mapping_np]
    num_computed_prefill_tokens_np = slot_table.num_computed_prefill_tokens[idx_mapping_np]
    is_prefilling_np = num_computed_prefill_tokens_np < prefill_len_np
    return BatchState(
        req_ids=req_ids,
        num_scheduled_tokens=num_scheduled_tokens,
        idx_mapping_np=idx_mapping_np,
        num_computed_tokens_np=slot_table.num_computed_tokens[idx_mapping_np],
        prefill_len_np=prefill_len_np,
        num_computed_prefill_tokens_np=num_computed_prefill_tokens_np,
        is_prefilling_np=is_prefilling_np,
        has_prefill=bool(is_prefilling_np.any()),
    )
