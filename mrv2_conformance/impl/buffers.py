"""Persistent device buffers that batches are built into (upstream ``InputBuffers``)."""

from __future__ import annotations

import torch
from mrv2_conformance.impl._checks import check_int


class InputBuffers:
    def __init__(self, max_num_reqs: int, max_num_tokens: int, device: torch.device | str) -> None:
        self.max_num_reqs = check_int("max_num_reqs", max_num_reqs, minimum=1)
        self.max_num_tokens = check_int("max_num_tokens", max_num_tokens, minimum=1)
        self.device = torch.device(device)
        self.query_start_loc = torch.zeros(
            self.max_num_reqs + 1, dtype=torch.int32, device=self.device
        )
        self.seq_lens = torch.zeros(self.max_num_reqs, dtype=torch.int32, device=self.device)

    def check_capacity(self, what: str, num_reqs: int, num_tokens: int) -> None:
        if num_reqs > self.max_num_reqs:
            raise ValueError(
                f"{what}: {num_reqs} requests exceed the buffers' max_num_reqs={self.max_num_reqs}"
            )
        if num_tokens > self.max_num_tokens:
            raise ValueError(
                f"{what}: {num_tokens} tokens exceed the buffers' "
                f"max_num_tokens={self.max_num_tokens}"
            )
