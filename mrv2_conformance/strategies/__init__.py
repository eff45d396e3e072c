"""Hypothesis strategies for scheduler batches, slot tables and PCP worlds.

Every strategy yields a *case*: plain data (ints, strings, dicts, op lists) that
rebuilds the input on any target and prints readably in a falsifying example.
"""

from mrv2_conformance.strategies.batches import (
    BatchCase,
    SortCase,
    batch_cases,
    missing_id_cases,
    missing_id_examples,
    no_draft_entries_example,
    production_examples,
    sort_cases,
)
from mrv2_conformance.strategies.ids import request_ids
from mrv2_conformance.strategies.inputs import copy_sources, dummy_sizes, production_dummy_sizes
from mrv2_conformance.strategies.pcp import (
    PcpCase,
    every_world_size,
    pcp_cases,
    placeholder_cases,
    placeholder_examples,
)
from mrv2_conformance.strategies.slot_tables import SlotHistory, slot_histories, table_sizes

__all__ = [
    "BatchCase",
    "PcpCase",
    "SlotHistory",
    "SortCase",
    "batch_cases",
    "copy_sources",
    "dummy_sizes",
    "every_world_size",
    "missing_id_cases",
    "missing_id_examples",
    "no_draft_entries_example",
    "pcp_cases",
    "placeholder_cases",
    "placeholder_examples",
    "production_dummy_sizes",
    "production_examples",
    "request_ids",
    "slot_histories",
    "sort_cases",
    "table_sizes",
]
