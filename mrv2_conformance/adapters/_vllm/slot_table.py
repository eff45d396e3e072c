"""The slot table: upstream ``RequestState`` (``req_states``), unchanged."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import torch
from mrv2_conformance.adapters._vllm import runner
from mrv2_conformance.adapters._vllm.environment import has_accelerator, host_memory_stand_ins
from mrv2_conformance.adapters._vllm.upstream import API, buffer_utils

# RequestState sizes its token store [max_num_reqs, max_model_len] (int32): 64 MiB for
# a 1,024-slot table at 16,384 (vLLM's largest default max_num_batched_tokens), which
# every "nothing changed" check copies and compares. The targets declare it as their
# MAX_MODEL_LEN, and the strategies keep prompts within it; contexts of decodes go to
# the int32 limit (upstream reads the store only at a prefill's positions).
MAX_MODEL_LEN = 16384
MAX_SPEC_STEPS = 8
_VOCAB_SIZE = 32000


def default_device() -> torch.device:
    return torch.device("cuda" if has_accelerator() else "cpu")


_TABLES: weakref.WeakSet[SlotTable] = weakref.WeakSet()


def buffers_made_on(device: torch.device) -> None:
    """Input buffers on ``device`` were made: every live table elsewhere replays its
    history there now, before any call reads it, and keeps that replica current. A
    replica first built inside a call would be new state to the suite's checks that
    a failed call changes nothing (the table's, not the target's doing)."""
    for table in list(_TABLES):
        if table.device != device:
            table.states_on(device)


class SlotTable:
    """The suite's slot-table interface over one upstream ``RequestState``.

    ``add_request(req_id, prefill_len, num_computed_tokens)`` admits the request as
    upstream's ``add_requests`` does (a prompt of ``prefill_len`` tokens already
    ``num_computed_tokens`` long) and runs upstream's ``update_requests`` bookkeeping,
    so the state is what the runner holds before ``prepare_inputs``; its staged device
    writes are applied at once (a later call must find nothing pending that it would
    then change). Everything else (slot choice, errors) is upstream's.
    Upstream tables live on one device; ``states_on`` replays the history onto
    another when buffers elsewhere ask for it.
    """

    def __init__(self, max_num_reqs: int, device: torch.device | str | None = None) -> None:
        self.max_num_reqs = max_num_reqs
        self.device = torch.device(device) if device is not None else default_device()
        self._ops: list[tuple[str, tuple[Any, ...]]] = []
        self._replicas: dict[torch.device, tuple[int, Any]] = {}
        self.req_states = self._new_states(self.device)
        _TABLES.add(self)

    def _new_states(self, device: torch.device) -> Any:
        with host_memory_stand_ins(buffer_utils):
            return API.request_state(
                max_num_reqs=self.max_num_reqs,
                max_model_len=MAX_MODEL_LEN,
                max_num_batched_tokens=MAX_MODEL_LEN,
                num_speculative_steps=MAX_SPEC_STEPS,
                vocab_size=_VOCAB_SIZE,
                device=device,
            )

    def _add(
        self, req_states: Any, req_id: str, prefill_len: int, num_computed_tokens: int
    ) -> None:
        with host_memory_stand_ins(buffer_utils):
            API.add_request(
                req_states,
                req_id=req_id,
                prompt_len=prefill_len,
                all_token_ids=[0] * prefill_len,
                num_computed_tokens=num_computed_tokens,
                max_tokens=MAX_MODEL_LEN,
            )
            req_states.apply_staged_writes()
            runner.update_requests(req_states)

    def add_request(self, req_id: str, prefill_len: int, num_computed_tokens: int = 0) -> int:
        self._add(self.req_states, req_id, prefill_len, num_computed_tokens)
        self._record("add", (req_id, prefill_len, num_computed_tokens))
        return self.req_states.req_id_to_index[req_id]

    def _apply(self, req_states: Any, op: str, args: tuple[Any, ...]) -> None:
        if op == "add":
            self._add(req_states, *args)
        elif op == "step":
            self._update(req_states, *args)
        else:
            req_states.remove_request(*args)

    def _record(self, op: str, args: tuple[Any, ...]) -> None:
        """Keep the history, and the replicas that were current, current."""
        self._ops.append((op, args))
        for device, (version, replica) in list(self._replicas.items()):
            if version == len(self._ops) - 1:
                self._apply(replica, op, args)
                self._replicas[device] = (len(self._ops), replica)

    def _update(self, req_states: Any, step: Any) -> None:
        """A step's request updates as the runner applies them: upstream's
        ``finish_requests``, ``add_requests`` and ``update_requests`` (the plugin's,
        where it overrides them) on upstream's ``SchedulerOutput`` of the step.

        Before them, the device copy of each running request's computed tokens is set
        to the step's count: what the runner's post-sampling update (``post_update``,
        computed + scheduled - rejected) left there after the previous step, which the
        suite does not run (it samples nothing)."""
        output = runner.scheduler_output_of(step)
        stand_in = runner.stand_in(req_states, 1)
        with host_memory_stand_ins(buffer_utils):
            device = req_states.num_computed_tokens
            for req_id, computed in step.scheduled_cached_reqs.items():
                slot = req_states.req_id_to_index.get(req_id)
                if slot is not None:
                    device.stage_write_elem(slot, computed)
            device.apply_write()
            API.finish_requests(stand_in, scheduler_output=output)
            API.add_requests(stand_in, scheduler_output=output)
            API.update_requests(stand_in, scheduler_output=output)

    def update_states(self, step: Any) -> None:
        self._update(self.req_states, step)
        self._record("step", (step,))

    def remove_request(self, req_id: str) -> int | None:
        slot = self.req_states.remove_request(req_id)
        if slot is not None:
            self._record("remove", (req_id,))
        return slot

    def states_on(self, device: torch.device) -> Any:
        """The upstream table on ``device``: this one, or a replay of its history."""
        if device == self.device:
            return self.req_states
        version, replica = self._replicas.get(device, (-1, None))
        if version != len(self._ops):
            replica = self._new_states(device)
            for op, args in self._ops:
                self._apply(replica, op, args)
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
