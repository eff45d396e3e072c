"""Build target inputs from a case. The ``*_CALL`` strings name the call in failure
messages; reproducing a failure is plugin/reproduce.py's job."""

from __future__ import annotations

from typing import Any

import torch
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
