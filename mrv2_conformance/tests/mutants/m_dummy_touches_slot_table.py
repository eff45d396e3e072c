"""A stateful runner: prepare_inputs remembers its slot table, and make_dummy resets
that table's num_computed_tokens (a dummy run that changes request state)."""

from mrv2_conformance.impl import *  # noqa: F403

from mrv2_conformance import impl

FAMILY = "dummy_parity"
_last_table: list[impl.SlotTable] = []


def prepare_inputs(batch, table, buffers, decode_query_len):
    _last_table[:] = [table]
    return impl.prepare_inputs(batch, table, buffers, decode_query_len)


def make_dummy(*args, **kwargs):
    for table in _last_table:
        table.num_computed_tokens[:] = 0
    return impl.make_dummy(*args, **kwargs)
