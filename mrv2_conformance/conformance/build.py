"""Build target inputs from a case. The ``*_CALL`` strings name the call in failure
messages; reproducing a failure is plugin/reproduce.py's job."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import torch
from mrv2_conformance.conformance.fields import ARRAY_FIELDS, SCALAR_FIELDS
from mrv2_conformance.conformance.target import Target
from mrv2_conformance.strategies.batches import BatchCase
from mrv2_conformance.strategies.pcp import PcpCase

PREPARE_CALL = "prepare_inputs(batch, table, buffers, decode_query_len)"
GATHER_CALL = "gather_batch_req_state(batch, table, decode_query_len)"


def prepare(target: Target, case: BatchCase, device: str) -> tuple[Any, Any, Any]:
    """(table, buffers, input batch) of ``case`` built on the target."""
    table = case.build_table(target)
    buffers = target.InputBuffers(case.max_num_reqs, case.max_num_tokens, device)
    out = target.prepare_inputs(case.batch(), table, buffers, case.decode_query_len)
    return table, buffers, out


def synchronize(device: str) -> None:
    """The engine's read point: the work queued on the device's *current* stream has
    run (a model forward runs there). Work left on another stream without an event or
    wait_stream is not waited for, as the engine would not wait for it either."""
    dev = torch.device(device)
    if dev.type != "cpu":
        torch.get_device_module(dev).current_stream(dev).synchronize()


def read_in_stream_order(batch: Any) -> SimpleNamespace:
    """What the step's model forward reads of ``batch``, queued now as it would be: each
    device tensor copied on the device's current stream (so the copy sees what stream
    order says, whatever later calls refill or stage meanwhile), each host array
    copied now, as the engine reads host results at the return. One tensor appearing
    as two fields stays one (expanded_idx_mapping may be idx_mapping)."""
    seen: dict[int, Any] = {}

    def read(value: Any) -> Any:
        if id(value) not in seen:
            if isinstance(value, torch.Tensor):
                copy = torch.empty_like(value)
                copy.copy_(value, non_blocking=True)
                seen[id(value)] = copy
            elif isinstance(value, np.ndarray):
                seen[id(value)] = value.copy()
            else:
                seen[id(value)] = value
        return seen[id(value)]

    names = [f.name for f in ARRAY_FIELDS] + list(SCALAR_FIELDS)
    return SimpleNamespace(**{n: read(getattr(batch, n)) for n in names if hasattr(batch, n)})


def local_buffers(target: Target, case: PcpCase, device: str) -> Any:
    """Rank-local buffers as upstream sizes them: a request yields <= 2 segments."""
    return target.InputBuffers(
        2 * case.batch_case.max_num_reqs, case.batch_case.max_num_tokens, device
    )


def partition_call(case: PcpCase, rank: int | str) -> str:
    return f"partition_batch(global_batch, {case.world_size}, {rank}, local_buffers)"


def partition_ranks(
    target: Target, case: PcpCase, device: str
) -> tuple[Any, list[tuple[Any, Any]]]:
    """The target's global batch and every rank's (local batch, local buffers)."""
    global_batch = prepare(target, case.batch_case, device)[2]
    ranks = []
    for rank in range(case.world_size):
        buffers = local_buffers(target, case, device)
        ranks.append(
            (target.partition_batch(global_batch, case.world_size, rank, buffers), buffers)
        )
    return global_batch, ranks


def partition_all(target: Target, case: PcpCase, device: str) -> tuple[Any, list[Any]]:
    """The target's global batch and every rank's local batch."""
    global_batch, ranks = partition_ranks(target, case, device)
    return global_batch, [out for out, _ in ranks]
