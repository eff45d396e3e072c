"""update_states pops each finished id off the step's finished_req_ids as it frees it
(the engine's step is emptied under it)."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "effects"


def update_states(step, slot_table):
    impl.update_states(step, slot_table)
    while step.finished_req_ids:
        step.finished_req_ids.pop()
