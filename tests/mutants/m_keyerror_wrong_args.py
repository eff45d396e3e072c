"""The KeyError carries a sentence, not the bare request id (args != (req_id,))."""
import impl
from impl import *  # noqa: F401,F403
from impl import prepare
from tests.mutants._patch import with_patches

FAMILY = "keyerror"


def gather_batch_req_state(batch, table, decode_query_len):
    try:
        return impl.gather_batch_req_state(batch, table, decode_query_len)
    except KeyError as exc:
        raise KeyError(f"request {exc.args[0]} is not in the slot table") from None


prepare_inputs = with_patches(impl.prepare_inputs,
                              (prepare, "gather_batch_req_state", gather_batch_req_state))
