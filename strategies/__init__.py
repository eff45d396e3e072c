"""Hypothesis strategies for scheduler batches, slot tables and PCP worlds.

Every strategy yields a *case*: plain data (ints, strings, dicts, op lists) that
rebuilds the input on any target and prints as a copy-paste reproduction.
"""

from strategies.batches import BatchCase, SortCase, batch_cases, missing_id_cases, sort_cases
from strategies.ids import request_ids
from strategies.inputs import copy_sources, dummy_sizes
from strategies.pcp import PcpCase, pcp_cases
from strategies.slot_tables import SlotHistory, slot_histories

__all__ = [
    "BatchCase",
    "PcpCase",
    "SlotHistory",
    "SortCase",
    "batch_cases",
    "copy_sources",
    "dummy_sizes",
    "missing_id_cases",
    "pcp_cases",
    "request_ids",
    "slot_histories",
    "sort_cases",
]
