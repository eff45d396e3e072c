"""Build target inputs from a case, recording a reproduction snippet with ``note``.

Hypothesis prints the notes of the final (shrunk) falsifying example, so every
failure report ends with Python that rebuilds the input and calls the target.
"""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import note

from conformance.target import Target
from strategies.batches import BatchCase
from strategies.pcp import PcpCase

PREPARE_CALL = "prepare_inputs(batch, table, buffers, decode_query_len)"
GATHER_CALL = "gather_batch_req_state(batch, table, decode_query_len)"


def note_reproduction(code: str) -> None:
    """Attach ``code`` to the falsifying example. The header is what the JSON report
    (conformance/report.py) looks for."""
    note("Reproduce with:\n" + code)


def target_snippet(target_name: str, *lines: str) -> str:
    """A standalone snippet: import the target as ``t``, then ``lines``."""
    return "\n".join(["import importlib, numpy as np, torch",
                      f"t = importlib.import_module({target_name!r})", *lines])


def buffers_line(case: BatchCase) -> str:
    return f"buffers = t.InputBuffers({case.max_num_reqs}, {case.max_num_tokens}, device)"


def prepare(target: Target, case: BatchCase, device: str,
            *more_calls: str, record: bool = True) -> tuple[Any, Any, Any]:
    """(table, buffers, input batch) of ``case`` built on the target."""
    if record:
        note_reproduction(case.snippet(
            target.name, device, buffers_line(case), f"out = t.{PREPARE_CALL}", *more_calls))
    table = case.build_table(target)
    buffers = target.InputBuffers(case.max_num_reqs, case.max_num_tokens, device)
    out = target.prepare_inputs(case.batch(), table, buffers, case.decode_query_len)
    return table, buffers, out


def synchronize(device: str) -> None:
    """Wait for queued non_blocking copies, so host-side reads see their result."""
    dev = torch.device(device)
    if dev.type != "cpu":
        getattr(torch, dev.type).synchronize(dev)


def local_buffers(target: Target, case: PcpCase, device: str) -> Any:
    """Rank-local buffers as upstream sizes them: a request yields <= 2 segments."""
    return target.InputBuffers(2 * case.batch_case.max_num_reqs,
                               case.batch_case.max_num_tokens, device)


def partition_call(case: PcpCase, rank: int | str) -> str:
    return f"partition_batch(global_batch, {case.world_size}, {rank}, local_buffers)"


def partition_ranks(target: Target, case: PcpCase, device: str
                    ) -> tuple[Any, list[tuple[Any, Any]]]:
    """The target's global batch and every rank's (local batch, local buffers)."""
    note_reproduction(case.snippet(
        target.name, device,
        f"local_buffers = t.InputBuffers(2 * {case.batch_case.max_num_reqs}, "
        f"{case.batch_case.max_num_tokens}, device)",
        f"outs = [t.{partition_call(case, 'rank')} for rank in range(pcp_world_size)]"))
    global_batch = prepare(target, case.batch_case, device, record=False)[2]
    ranks = []
    for rank in range(case.world_size):
        buffers = local_buffers(target, case, device)
        ranks.append((target.partition_batch(global_batch, case.world_size, rank, buffers),
                      buffers))
    return global_batch, ranks


def partition_all(target: Target, case: PcpCase, device: str) -> tuple[Any, list[Any]]:
    """The target's global batch and every rank's local batch."""
    global_batch, ranks = partition_ranks(target, case, device)
    return global_batch, [out for out, _ in ranks]
