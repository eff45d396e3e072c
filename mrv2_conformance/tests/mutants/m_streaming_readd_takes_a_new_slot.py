"""update_states re-adds a live request (vLLM's streaming-input update) on a new slot
without freeing its old one: the old slot leaks, and the request moves."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import steps

from mrv2_conformance import impl

FAMILY = "stateful"


class _KeepsLive:
    """The table as seen by the update: removing a live id that is re-added drops the
    mapping but keeps the slot in use."""

    def __init__(self, table):
        self._table = table

    def remove_request(self, req_id):
        return self._table.req_id_to_index.pop(req_id, None)

    def __getattr__(self, name):
        return getattr(self._table, name)


def update_states(step, slot_table):
    readded = {r.req_id for r in step.scheduled_new_reqs} & set(slot_table.req_id_to_index)
    readded -= set(step.finished_req_ids)
    if not readded:
        return impl.update_states(step, slot_table)
    steps._validate(step, slot_table)
    for req_id in sorted(step.finished_req_ids):
        slot_table.remove_request(req_id)
    for req in step.scheduled_new_reqs:
        if req.req_id in readded:
            _KeepsLive(slot_table).remove_request(req.req_id)
        else:
            slot_table.remove_request(req.req_id)
        slot_table.add_request(req.req_id, req.prefill_len, req.num_computed_tokens)
    for req_id, computed in step.scheduled_cached_reqs.items():
        slot = slot_table.req_id_to_index[req_id]
        slot_table.num_computed_tokens[slot] = computed
        slot_table.num_computed_prefill_tokens[slot] = min(
            computed, int(slot_table.prefill_len[slot])
        )
