"""A missing id raises a KeyError subclass whose str() is a sentence, not the id
(callers that format KeyError as the missing key print the wrong thing)."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import gather, prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

_original = gather.build_idx_mapping  # captured before any patching

FAMILY = "keyerror"


class RequestNotScheduled(KeyError):
    def __str__(self):
        return f"request {self.args[0]!r} is not in the slot table"


def _build_idx_mapping(req_id_to_index, req_ids):
    try:
        return _original(req_id_to_index, req_ids)
    except KeyError as exc:
        raise RequestNotScheduled(*exc.args) from None


gather_batch_req_state = with_patches(
    impl.gather_batch_req_state, (gather, "build_idx_mapping", _build_idx_mapping)
)
prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
