"""F4: the request-state update of a scheduler step (upstream ``finish_requests``,
``add_requests`` and ``update_requests``, run by the runner before ``prepare_inputs``)."""

from __future__ import annotations

from mrv2_conformance.impl._checks import INT32_MAX, check_int, check_req_id
from mrv2_conformance.contract import SchedulerBatch
from mrv2_conformance.impl.slot_table import SlotTable


def _validate(step: SchedulerBatch, table: SlotTable) -> None:
    """Every check of the step before anything changes, so a refused step changes
    nothing (upstream asserts inside its loops and leaves a half-applied update)."""
    for req_id in step.finished_req_ids:
        check_req_id(req_id)
    live = set(table.req_id_to_index).difference(step.finished_req_ids)
    new_ids: set[str] = set()
    for req in step.scheduled_new_reqs:
        check_req_id(req.req_id)
        if req.req_id in new_ids:
            raise ValueError(f"request {req.req_id!r} is new twice in one step")
        new_ids.add(req.req_id)
        check_int(f"prefill_len of {req.req_id!r}", req.prefill_len, minimum=0, maximum=INT32_MAX)
        check_int(
            f"num_computed_tokens of {req.req_id!r}",
            req.num_computed_tokens,
            minimum=0,
            maximum=INT32_MAX,
        )
    # A new request that is live already is re-added in place (its slot is freed first).
    needed = len(live | new_ids)
    if needed > table.max_num_reqs:
        raise RuntimeError(
            f"slot table is full: the step needs {needed} slots "
            f"({len(new_ids - live)} new), the table has {table.max_num_reqs}"
        )
    live |= new_ids
    for req_id, computed in step.scheduled_cached_reqs.items():
        if req_id not in live:
            raise KeyError(req_id)
        check_int(f"num_computed_tokens of {req_id!r}", computed, minimum=0, maximum=INT32_MAX)


def update_states(step: SchedulerBatch, slot_table: SlotTable) -> None:
    """Apply a step's request updates to the slot table, in upstream's order:

    1. finished ids leave (an id the table does not hold is ignored); several are
       freed in sorted order, as vLLM 0.34.0 does (the CONTRACT leaves the order open);
    2. new requests are added in list order (one that is live already is removed and
       added again: upstream's streaming-input update);
    3. each running request's computed tokens are set to the scheduler's count, and
       every slot's computed prefill tokens become min(computed, prefill length).

    Reads the step and changes none of it; changes nothing when it raises.
    """
    _validate(step, slot_table)
    for req_id in sorted(step.finished_req_ids):
        slot_table.remove_request(req_id)
    for req in step.scheduled_new_reqs:
        slot_table.remove_request(req.req_id)
        slot_table.add_request(req.req_id, req.prefill_len, req.num_computed_tokens)
    for req_id, computed in step.scheduled_cached_reqs.items():
        slot = slot_table.req_id_to_index[req_id]
        slot_table.num_computed_tokens[slot] = computed
        slot_table.num_computed_prefill_tokens[slot] = min(
            computed, int(slot_table.prefill_len[slot])
        )
