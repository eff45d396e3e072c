"""Snapshots of target state, to prove that a call changed nothing."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from conformance.assertions import assert_equal, assert_values

TABLE_ARRAYS = ("num_computed_tokens", "prefill_len", "num_computed_prefill_tokens")


def snapshot_table(table: Any) -> dict[str, Any]:
    snap: dict[str, Any] = {"req_id_to_index": dict(table.req_id_to_index)}
    for name in TABLE_ARRAYS:
        snap[name] = np.array(getattr(table, name), copy=True)
    return snap


def snapshot_buffers(buffers: Any) -> dict[str, torch.Tensor]:
    return {name: value.clone() for name, value in vars(buffers).items()
            if isinstance(value, torch.Tensor)}


def assert_table_unchanged(call: str, before: dict[str, Any], table: Any) -> None:
    after = snapshot_table(table)
    assert_equal(call, "slot table req_id_to_index (must be unchanged)",
                 after["req_id_to_index"], before["req_id_to_index"])
    for name in TABLE_ARRAYS:
        assert_values(call, f"slot table {name} (must be unchanged)", after[name], before[name])


def assert_buffers_unchanged(call: str, before: dict[str, torch.Tensor], buffers: Any) -> None:
    for name, tensor in before.items():
        assert_values(call, f"input buffer {name} (must be unchanged)",
                      getattr(buffers, name), tensor)
