"""Lookups use dict.get(req_id, 0): a missing id silently maps to slot 0."""

from mrv2_conformance.impl import *  # noqa: F403
from mrv2_conformance.impl import prepare
from mrv2_conformance.tests.mutants._patch import with_patches

from mrv2_conformance import impl

FAMILY = "keyerror"


class _DefaultZero(dict):
    def __getitem__(self, key):
        return self.get(key, 0)


def gather_batch_req_state(batch, table, decode_query_len):
    real = table.req_id_to_index
    table.req_id_to_index = _DefaultZero(real)
    try:
        return impl.gather_batch_req_state(batch, table, decode_query_len)
    finally:
        table.req_id_to_index = real


prepare_inputs = with_patches(
    impl.prepare_inputs, (prepare, "gather_batch_req_state", gather_batch_req_state)
)
