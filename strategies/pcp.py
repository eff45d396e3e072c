"""PCP worlds: a draft-free global batch and a world size of 1-8 (every rank is checked)."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import event
from hypothesis import strategies as st

from strategies.batches import BatchCase, batch_cases

MAX_WORLD_SIZE = 8


@dataclass
class PcpCase:
    batch_case: BatchCase
    world_size: int

    def snippet(self, target_name: str, device: str, *calls: str) -> str:
        return self.batch_case.snippet(
            target_name, device,
            f"buffers = t.InputBuffers({self.batch_case.max_num_reqs}, "
            f"{self.batch_case.max_num_tokens}, device)",
            "global_batch = t.prepare_inputs(batch, table, buffers, decode_query_len)",
            f"pcp_world_size = {self.world_size}",
            *calls)


@st.composite
def pcp_cases(draw: st.DrawFn) -> PcpCase:
    case = draw(batch_cases(kinds=("prefill", "mixed", "decode")))
    world_size = draw(st.integers(1, MAX_WORLD_SIZE), label="pcp_world_size")
    event(f"pcp_world_size: {world_size}")
    return PcpCase(case, world_size)
