"""The reference rejects bad input with an exception that names the bad value, and a
rejected call changes no state (slot table, buffers). Bad input includes the wrong
types, passed on purpose (the type checker is told so on those lines)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from mrv2_conformance.conformance import state
from mrv2_conformance.impl import InputBuffers, SchedulerBatch, SlotTable

from mrv2_conformance import impl


def table_with(*ids: str, max_num_reqs: int = 4) -> SlotTable:
    table = SlotTable(max_num_reqs)
    for i, req_id in enumerate(ids):
        table.add_request(req_id, 8, i)  # "a" is prefilling (0 < 8), "b" too, ...
    return table


def global_batch(drafts: dict[str, list[int]] | None = None) -> impl.InputBatch:
    table = table_with("a", "b")
    return impl.prepare_inputs(
        SchedulerBatch({"a": 3, "b": 2}, drafts or {}),
        table,
        InputBuffers(4, 16, "cpu"),
        3 if drafts else 1,
    )


def gather(num: dict, drafts: dict | None = None, total: int | None = None, dql: int = 1):
    batch = SchedulerBatch(num, drafts or {}, total)
    return lambda t, b: impl.gather_batch_req_state(batch, t, dql)


# (id, call(table, buffers), exception, fragments its message must contain)
CASES: list[tuple[str, Callable[[SlotTable, InputBuffers], Any], type, tuple[str, ...]]] = [
    ("table capacity 0", lambda t, b: SlotTable(0), ValueError, ("max_num_reqs", "0")),
    ("table capacity not int", lambda t, b: SlotTable("4"), TypeError, ("max_num_reqs", "'4'")),  # type: ignore[arg-type]
    ("add duplicate id", lambda t, b: t.add_request("a", 1), ValueError, ("'a'", "already")),
    ("add non-str id", lambda t, b: t.add_request(7, 1), TypeError, ("request id", "7")),  # type: ignore[arg-type]
    (
        "add negative prefill_len",
        lambda t, b: t.add_request("z", -1),
        ValueError,
        ("prefill_len", "-1"),
    ),
    (
        "add negative computed",
        lambda t, b: t.add_request("z", 1, -2),
        ValueError,
        ("num_computed_tokens", "-2"),
    ),
    (
        "add past int32",
        lambda t, b: t.add_request("z", 2**31),
        ValueError,
        ("prefill_len", str(2**31)),
    ),
    ("add float count", lambda t, b: t.add_request("z", 1.5), TypeError, ("prefill_len", "1.5")),  # type: ignore[arg-type]
    ("add bool count", lambda t, b: t.add_request("z", True), TypeError, ("prefill_len", "True")),
    ("zero tokens", gather({"a": 0}), ValueError, ("'a'", "0", ">= 1")),
    ("negative tokens", gather({"a": -3}), ValueError, ("'a'", "-3")),
    ("non-int tokens", gather({"a": 2.0}), TypeError, ("'a'", "2.0")),
    ("empty batch", gather({}), ValueError, ("no request",)),
    ("total mismatch", gather({"a": 2}, total=5), ValueError, ("5", "2")),
    (
        "drafts not fewer than tokens",
        gather({"a": 2}, {"a": [1, 2]}, dql=3),
        ValueError,
        ("'a'", "2 draft tokens"),
    ),
    ("decode_query_len 0", gather({"a": 1}, dql=0), ValueError, ("decode_query_len", "0")),
    (
        "prepare over max_num_reqs",
        lambda t, b: impl.prepare_inputs(
            SchedulerBatch({"a": 1, "b": 1}), t, InputBuffers(1, 8, "cpu"), 1
        ),
        ValueError,
        ("2 requests", "max_num_reqs=1"),
    ),
    (
        "prepare over max_num_tokens",
        lambda t, b: impl.prepare_inputs(SchedulerBatch({"a": 8, "b": 9}), t, b, 1),
        ValueError,
        ("17 tokens", "max_num_tokens=16"),
    ),
    ("dummy non-int", lambda t, b: impl.make_dummy("2", 4, b), TypeError, ("num_reqs", "'2'")),  # type: ignore[arg-type]
    (
        "dummy over capacity",
        lambda t, b: impl.make_dummy(5, 8, b),
        ValueError,
        ("5 requests", "max_num_reqs=4"),
    ),
    (
        "dummy max_query_len 0",
        lambda t, b: impl.make_dummy(1, 4, b, 0),
        ValueError,
        ("max_query_len", "0"),
    ),
    (
        "buffers with no requests",
        lambda t, b: InputBuffers(0, 4, "cpu"),
        ValueError,
        ("max_num_reqs", "0"),
    ),
    (
        "buffers with no tokens",
        lambda t, b: InputBuffers(2, 0, "cpu"),
        ValueError,
        ("max_num_tokens", "0"),
    ),
    (
        "copy a list",
        lambda t, b: impl.async_copy_to_gpu([1, 2], device="cpu"),  # type: ignore[arg-type]
        TypeError,
        ("list",),
    ),
    (
        "copy with nowhere to go",
        lambda t, b: impl.async_copy_to_gpu(np.zeros(2)),
        ValueError,
        ("out=", "device="),
    ),
    (
        "copy into a wrong shape",
        lambda t, b: impl.async_copy_to_gpu(np.zeros(2, np.int32), out=b.seq_lens),
        ValueError,
        ("(4,)", "(2,)"),
    ),
    (
        "copy into a wrong dtype",
        lambda t, b: impl.async_copy_to_gpu(np.zeros(4, np.int64), out=b.seq_lens),
        ValueError,
        ("torch.int32", "torch.int64"),
    ),
    (
        "pcp world size 0",
        lambda t, b: impl.partition_batch(global_batch(), 0, 0, b),
        ValueError,
        ("pcp_world_size", "0"),
    ),
    (
        "pcp rank past world",
        lambda t, b: impl.partition_batch(global_batch(), 2, 2, b),
        ValueError,
        ("pcp_rank", "2"),
    ),
    (
        "pcp negative rank",
        lambda t, b: impl.partition_batch(global_batch(), 2, -1, b),
        ValueError,
        ("pcp_rank", "-1"),
    ),
    (
        "pcp with drafts",
        lambda t, b: impl.partition_batch(global_batch({"b": [5]}), 2, 0, b),
        NotImplementedError,
        ("speculative", "1 draft"),
    ),
    (
        "pcp over local rows",
        lambda t, b: impl.partition_batch(global_batch(), 2, 0, InputBuffers(1, 16, "cpu")),
        RuntimeError,
        ("2 local requests", "max_num_reqs=1"),
    ),
    (
        "pcp over local tokens",
        lambda t, b: impl.partition_batch(global_batch(), 1, 0, InputBuffers(4, 4, "cpu")),
        RuntimeError,
        ("5 padded tokens", "max_num_tokens=4"),
    ),
]


@pytest.mark.parametrize("call, exc, fragments", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_rejected_clearly_and_changes_nothing(call, exc, fragments):
    table, buffers = table_with("a", "b"), InputBuffers(4, 16, "cpu")
    roots = {"table": table, "buffers": buffers}
    state.fill_with_sentinels({"buffers": buffers})  # so a stray write shows
    before = state.snapshot(roots)
    with pytest.raises(exc) as info:
        call(table, buffers)
    for fragment in fragments:
        assert fragment in str(info.value), f"{fragment!r} not in {str(info.value)!r}"
    state.assert_unchanged("the rejected call", before, roots)


def test_full_table_error_names_the_capacity_and_changes_nothing():
    table = table_with("a", "b", max_num_reqs=2)
    before = state.snapshot({"table": table})
    with pytest.raises(RuntimeError, match=r"full.*'c'.*2 slots"):
        table.add_request("c", 1)
    state.assert_unchanged("add_request to a full table", before, {"table": table})
    assert table.free_slots == []


def test_zero_token_rows_are_skipped_by_the_pcp_layout():
    """CONTRACT F3: zero-token rows contribute no segment (not reachable from a validated
    scheduler batch, so exercised directly)."""
    batch = global_batch()
    batch.num_scheduled_tokens = np.array([0, 2], dtype=np.int32)
    batch.query_start_loc_np = np.array([0, 0, 2], dtype=np.int32)
    batch.num_tokens = 2
    layout = impl.build_pcp_layout(batch, 1)
    assert {s.global_req_idx for s in layout.segments_by_rank[0]} == {1}


def test_async_copy_to_gpu_stages_through_pinned_memory_on_an_accelerator(monkeypatch):
    """F1.4: to an accelerator the copy is pinned + non_blocking. Observed with a fake
    device tensor, since this machine has none."""
    seen = {}

    class FakeOut:
        shape, dtype, device = torch.Size([3]), torch.int64, torch.device("meta")

        def copy_(self, src, non_blocking=False):
            seen.update(pinned=src.is_pinned_marker, non_blocking=non_blocking)
            return self

    class Src(torch.Tensor):
        pass

    def fake_pin(self):
        pinned = self.clone()
        pinned.is_pinned_marker = True
        return pinned

    monkeypatch.setattr(torch.Tensor, "pin_memory", fake_pin)
    out = FakeOut()
    assert impl.async_copy_to_gpu(np.arange(3), out=out) is out
    assert seen == {"pinned": True, "non_blocking": True}
