"""Reference implementation of the MRV2 index-mapping contract (docs/CONTRACT.md).

This package is also the *default target*: a target is any importable module that
exposes the names in ``contract.INTERFACE`` with the same semantics, and
may declare the contract revision it claims (``CONTRACT_REVISION``; default "#51210").
"""

from mrv2_conformance.impl.buffers import InputBuffers
from mrv2_conformance.impl.dummy import make_dummy
from mrv2_conformance.impl.gather import BatchState, gather_batch_req_state
from mrv2_conformance.impl.h2d import async_copy_to_gpu
from mrv2_conformance.impl.input_batch import InputBatch
from mrv2_conformance.impl.ordering import sort_batch_req_ids
from mrv2_conformance.impl.pcp import PcpLayout, RankSegment, build_pcp_layout, partition_batch
from mrv2_conformance.impl.prepare import prepare_inputs
from mrv2_conformance.impl.revisions import DEFAULT as CONTRACT_REVISION
from mrv2_conformance.contract import NewRequest, SchedulerBatch
from mrv2_conformance.impl.slot_table import SlotTable
from mrv2_conformance.impl.steps import update_states

__all__ = [
    "CONTRACT_REVISION",
    "BatchState",
    "InputBatch",
    "InputBuffers",
    "NewRequest",
    "PcpLayout",
    "RankSegment",
    "SchedulerBatch",
    "SlotTable",
    "async_copy_to_gpu",
    "build_pcp_layout",
    "gather_batch_req_state",
    "make_dummy",
    "partition_batch",
    "prepare_inputs",
    "sort_batch_req_ids",
    "update_states",
]
