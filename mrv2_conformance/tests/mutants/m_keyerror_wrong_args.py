"""The KeyError carries a sentence, not the bare request id (args != (req_id,))."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "keyerror"


def gather_batch_req_state(batch, table, decode_query_len):
    try:
        return impl.gather_batch_req_state(batch, table, decode_query_len)
    except KeyError as exc:
        raise KeyError(f"request {exc.args[0]} is not in the slot table") from None


prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
