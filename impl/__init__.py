"""Reference implementation of the MRV2 index-mapping contract (../shared/SPEC.md).

This package is also the *default target*: a target is any importable module that
exposes the names in ``conformance.target.INTERFACE`` with the same semantics.
"""

from impl.buffers import InputBuffers
from impl.dummy import make_dummy
from impl.gather import BatchState, gather_batch_req_state
from impl.h2d import async_copy_to_gpu
from impl.input_batch import InputBatch
from impl.ordering import sort_batch_req_ids
from impl.pcp import PcpLayout, RankSegment, build_pcp_layout, partition_batch
from impl.prepare import prepare_inputs
from impl.scheduler import SchedulerBatch
from impl.slot_table import SlotTable

__all__ = [
    "BatchState",
    "InputBatch",
    "InputBuffers",
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
]
