"""The simulated device's semantics, each a tested property of the device itself
(docs/device.md): a second memory, adversarial deterministic timing, pinned memory,
streams and events, several devices."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from mrv2_conformance import simdevice

try:
    sim = simdevice.load()
except simdevice.SimDeviceUnavailable as exc:  # pragma: no cover - a machine without g++
    pytest.skip(f"simulated device unavailable: {exc}", allow_module_level=True)

DEV = torch.device("simdev", 1)
POISON64 = int.from_bytes(bytes([sim.POISON_BYTE] * 8), "little", signed=True)


def pinned(values: list[int]) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.int64).pin_memory()


def test_device_memory_is_not_host_memory():
    t = torch.arange(4, device=DEV)
    assert t.device == DEV and not t.is_cpu
    with pytest.raises(TypeError, match="numpy"):
        t.numpy()
    host = t.cpu()
    host[0] = 99  # a copy: the device is untouched
    assert t.tolist() == [0, 1, 2, 3]


def test_fresh_device_memory_is_poison():
    assert torch.empty(3, dtype=torch.int64, device=DEV).tolist() == [POISON64] * 3


def test_pinned_memory():
    src = torch.arange(3)
    assert not src.is_pinned() and src.pin_memory().is_pinned()


@given(st.lists(st.integers(0, 2**40), min_size=1, max_size=8))
def test_a_refilled_pinned_source_delivers_the_refilled_data(values):
    src = pinned(values)
    out = torch.empty(len(values), dtype=torch.int64, device=DEV)
    out.copy_(src, non_blocking=True)
    assert sim.pending(DEV) >= 1
    src.fill_(7)  # refilled before the copy ran
    assert out.tolist() == [7] * len(values)


def test_a_pageable_source_is_staged_at_the_copy():
    src = torch.tensor([1, 2, 3])
    out = torch.empty(3, dtype=torch.int64, device=DEV)
    out.copy_(src, non_blocking=True)
    src.fill_(0)
    assert out.tolist() == [1, 2, 3]


def test_an_unwaited_device_to_host_copy_reads_poison_until_synchronized():
    dev = torch.tensor([5, 6], device=DEV)
    host = torch.empty(2, dtype=torch.int64).pin_memory()
    host.copy_(dev, non_blocking=True)
    assert sim.host_write_pending(host.data_ptr(), 16) and sim.host_writes_queued() == 1
    assert host.numpy().tolist() == [POISON64] * 2
    sim.current_stream(DEV).synchronize()
    assert host.numpy().tolist() == [5, 6] and not sim.host_write_pending(host.data_ptr(), 16)
    assert sim.host_writes_queued() == 0


def test_a_copy_runs_when_an_operation_on_its_stream_touches_its_memory():
    out = torch.zeros(2, dtype=torch.int64, device=DEV)
    other = torch.zeros(2, dtype=torch.int64, device=DEV)
    out.copy_(pinned([3, 4]), non_blocking=True)
    other.add_(1)  # touches other memory: the copy stays queued
    assert sim.pending(DEV) == 1
    assert (out + 0).tolist() == [3, 4] and sim.pending(DEV) == 0


def test_a_touch_runs_only_the_work_it_depends_on():
    """Reading one copy's result leaves an earlier copy to other memory queued (a real
    device may run it later), so its pinned source refilled meanwhile still shows."""
    first, second = (torch.zeros(2, dtype=torch.int64, device=DEV) for _ in range(2))
    src = pinned([1, 2])
    first.copy_(src, non_blocking=True)
    second.copy_(pinned([3, 4]), non_blocking=True)
    second.add_(0)  # runs the second copy only
    assert sim.pending(DEV) == 1
    src.fill_(9)
    assert first.tolist() == [9, 9] and second.tolist() == [3, 4]


def test_dependent_work_keeps_stream_order():
    """A copy that reads what an earlier queued copy writes (device to pinned host,
    then that host memory back) sees the earlier copy's data."""
    staged = torch.empty(2, dtype=torch.int64).pin_memory()
    back = torch.zeros(2, dtype=torch.int64, device=DEV)
    staged.copy_(torch.tensor([5, 6], device=DEV), non_blocking=True)
    back.copy_(staged, non_blocking=True)
    assert (back + 0).tolist() == [5, 6]


def test_a_reader_queued_before_a_copy_sees_what_was_there():
    """Poison marks a destination only for the readers after its copy: a copy queued
    before (a device-side read of a buffer) sees the buffer's earlier value."""
    buffer = torch.full((2,), 5, dtype=torch.int64, device=DEV)
    read = torch.empty_like(buffer)
    read.copy_(buffer, non_blocking=True)
    buffer.copy_(pinned([1, 2]), non_blocking=True)
    sim.current_stream(DEV).synchronize()
    assert read.tolist() == [5, 5] and buffer.tolist() == [1, 2]


def test_another_streams_work_is_not_visible_without_a_wait():
    out = torch.zeros(2, dtype=torch.int64, device=DEV)
    side = sim.Stream(DEV)
    with sim.stream(side):
        out.copy_(pinned([8, 9]), non_blocking=True)
    assert (out + 0).tolist() == [POISON64] * 2  # the current stream reads it in flight
    sim.current_stream(DEV).wait_stream(side)
    assert (out + 0).tolist() == [8, 9]


def test_events_order_streams():
    out = torch.zeros(1, dtype=torch.int64, device=DEV)
    side = sim.Stream(DEV)
    event = torch.Event(device=DEV)
    with sim.stream(side):
        out.copy_(pinned([1]), non_blocking=True)
        event.record(side)
    assert not event.query()
    event.synchronize()
    assert event.query() and out.tolist() == [1]


def test_a_device_synchronize_runs_every_stream():
    out = torch.zeros(1, dtype=torch.int64, device=DEV)
    with sim.stream(sim.Stream(DEV)):
        out.copy_(pinned([2]), non_blocking=True)
    sim.synchronize(DEV)
    assert sim.pending(DEV) == 0 and out.tolist() == [2]


def test_several_devices_and_the_current_one_stays_index_0():
    assert sim.device_count() >= 2 and sim.current_device() == 0
    assert torch.get_device_module(DEV) is sim
    a = torch.zeros(2, device="simdev:0")
    b = torch.zeros(2, device=DEV)
    with pytest.raises(RuntimeError, match="simdev:0 and simdev:1"):
        _ = a + b
    with pytest.raises(RuntimeError, match="simdev:1 and cpu"):
        _ = b + torch.zeros(2)
    assert torch.empty(1, device="simdev").device == torch.device("simdev", 0)


def test_indexing_takes_host_indices_as_on_cuda():
    t = torch.arange(5, device=DEV)
    assert t[torch.tensor([4, 0])].tolist() == [4, 0]
    assert np.array_equal(t[1:3].cpu().numpy(), [1, 2])
