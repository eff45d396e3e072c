"""The slot table: upstream ``RequestState`` (``req_states``), unchanged."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from mrv2_conformance.adapters._vllm import runner
from mrv2_conformance.adapters._vllm.environment import has_accelerator, host_memory_stand_ins
from mrv2_conformance.adapters._vllm.upstream import API, buffer_utils

# RequestState sizes its token store [max_num_reqs, max_model_len]; the suite's
# requests are far shorter (strategies: prefill_len <= 96).
MAX_MODEL_LEN = 4096
MAX_SPEC_STEPS = 8
_VOCAB_SIZE = 32000


def default_device() -> torch.device:
    return torch.device("cuda" if has_accelerator() else "cpu")


class SlotTable:
    """The suite's slot-table interface over one upstream ``RequestState``.

    ``add_request(req_id, prefill_len, num_computed_tokens)`` admits the request as
    upstream's ``add_requests`` does (a prompt of ``prefill_len`` tokens already
    ``num_computed_tokens`` long), applies the staged writes, then runs upstream's
    ``update_requests`` bookkeeping, so the state is what the runner holds before
    ``prepare_inputs``. Everything else (slot choice, errors) is upstream's.
    Upstream tables live on one device; ``states_on`` replays the history onto
    another when buffers elsewhere ask for it.
    """

    def __init__(self, max_num_reqs: int, device: torch.device | str | None = None) -> None:
        self.max_num_reqs = max_num_reqs
        self.device = torch.device(device) if device is not None else default_device()
        self._ops: list[tuple[str, tuple[Any, ...]]] = []
        self._replicas: dict[torch.device, tuple[int, Any]] = {}
        self.req_states = self._new_states(self.device)

    def _new_states(self, device: torch.device) -> Any:
        with host_memory_stand_ins(buffer_utils):
            return API.request_state(
                max_num_reqs=self.max_num_reqs, max_model_len=MAX_MODEL_LEN,
                max_num_batched_tokens=MAX_MODEL_LEN, num_speculative_steps=MAX_SPEC_STEPS,
                vocab_size=_VOCAB_SIZE, device=device)

    @staticmethod
    def _add(req_states: Any, req_id: str, prefill_len: int, num_computed_tokens: int) -> None:
        with host_memory_stand_ins(buffer_utils):
            API.add_request(req_states, req_id=req_id, prompt_len=prefill_len,
                                   all_token_ids=[0] * prefill_len,
                                   num_computed_tokens=num_computed_tokens,
                                   max_tokens=MAX_MODEL_LEN)
            req_states.apply_staged_writes()
            runner.update_requests(req_states)

    def add_request(self, req_id: str, prefill_len: int, num_computed_tokens: int = 0) -> int:
        self._add(self.req_states, req_id, prefill_len, num_computed_tokens)
        self._ops.append(("add", (req_id, prefill_len, num_computed_tokens)))
        return self.req_states.req_id_to_index[req_id]

    def remove_request(self, req_id: str) -> int | None:
        slot = self.req_states.remove_request(req_id)
        if slot is not None:
            self._ops.append(("remove", (req_id,)))
        return slot

    def states_on(self, device: torch.device) -> Any:
        """The upstream table on ``device``: this one, or a replay of its history."""
        if device == self.device:
            return self.req_states
        version, replica = self._replicas.get(device, (-1, None))
        if version != len(self._ops):
            replica = self._new_states(device)
            for op, args in self._ops:
                if op == "add":
                    self._add(replica, *args)
                else:
                    replica.remove_request(*args)
            self._replicas[device] = (len(self._ops), replica)
        return replica

    # The suite reads these (CONTRACT, Terms: per-slot int32 host arrays).
    @property
    def req_id_to_index(self) -> dict[str, int]:
        return self.req_states.req_id_to_index

    @property
    def num_reqs(self) -> int:
        return len(self.req_states.req_id_to_index)

    @property
    def prefill_len(self) -> np.ndarray:
        return self.req_states.prefill_len.np

    @property
    def num_computed_tokens(self) -> np.ndarray:
        return self.req_states.num_computed_tokens_np

    @property
    def num_computed_prefill_tokens(self) -> np.ndarray:
        return self.req_states.num_computed_prefill_tokens
